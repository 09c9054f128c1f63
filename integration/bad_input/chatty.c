// Helper for run_bad_input.py: prints LABEL and COUNT lines (default 2000),
// each with its own write(2) and values that vary (clock, getrandom), so
// that the trace has many events; ends with a line on stderr and exit 0.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const char* label = argc > 1 ? argv[1] : "chatty";
  int count = argc > 2 ? atoi(argv[2]) : 2000;
  char line[160];
  for (int i = 0; i < count; i++) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    unsigned r = 0;
    if (i % 10 == 0 && getrandom(&r, sizeof r, 0) != sizeof r) return 3;
    int n = snprintf(line, sizeof line, "%s line %d t=%lld.%09ld r=%08x\n", label, i,
                     (long long)ts.tv_sec, ts.tv_nsec, r);
    if (write(1, line, n) != n) return 4;
  }
  fprintf(stderr, "%s: finished %d lines\n", label, count);
  return 0;
}
