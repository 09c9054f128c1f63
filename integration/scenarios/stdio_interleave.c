// scenario: stdout and stderr interleaved on one pipe (the driver merges
// them), through unbuffered write(2), stdio with explicit fflush, and
// fprintf(stderr) (unbuffered); replay must keep the order.
// output: merged
#include "scenario.h"

#include <time.h>

int main(void) {
  for (int i = 0; i < 50; i++) {
    char buf[64];
    int n = snprintf(buf, sizeof buf, "out %d\n", i);
    SYS(write(1, buf, n));
    n = snprintf(buf, sizeof buf, "err %d\n", i);
    SYS(write(2, buf, n));
    printf("stdio out %d\n", i);
    fflush(stdout);
    fprintf(stderr, "stdio err %d\n", i);
    if (i % 10 == 0) {
      struct timespec ts;
      clock_gettime(CLOCK_MONOTONIC, &ts);
      printf("~ %d at %lld.%09ld\n", i, (long long)ts.tv_sec, ts.tv_nsec);
      fflush(stdout);
      fprintf(stderr, "~ stderr %d at %ld\n", i, ts.tv_nsec);
    }
  }
  printf("buffered at exit ");
  fprintf(stderr, "immediate\n");
  printf("flushed by exit\n");
  return 0;
}
