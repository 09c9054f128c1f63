// Helper for run_bad_input.py: writes numbered lines forever (one write(2)
// each), so that the driver can kill the recorder in the middle. It stops by
// itself after 100 million lines or 300 seconds (alarm), or when its stdout
// pipe is closed (SIGPIPE), so that it never outlives a failed test for long.
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>
#include <unistd.h>

int main(void) {
  alarm(300);
  char line[96];
  for (long i = 0; i < 100000000; i++) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int n = snprintf(line, sizeof line, "endless line %ld t=%09ld\n", i, ts.tv_nsec);
    if (write(1, line, n) != n) return 4;
  }
  return 0;
}
