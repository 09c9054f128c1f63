/* Clock-bound: clock_gettime(CLOCK_MONOTONIC) N times through libc, as
 * programs that time themselves do (Rust's Instant::now, libuv, the JVM).
 * Usage: clock_reads [COUNT]   (default 1000000)
 * Natively the vDSO answers without entering the kernel; under record the
 * preload library reads the clock and logs it in the thread's buffer
 * (preload/clock_calls.c), and replay gives the values back. Prints one line
 * that does not depend on the values read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000ULL;
  uint64_t x = 0;
  struct timespec ts;
  for (uint64_t i = 0; i < n; ++i) {
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 1;
    x ^= (uint64_t)ts.tv_nsec;
  }
  printf("clock_reads count=%llu%s\n", (unsigned long long)n, x == 1 ? "." : "");
  return 0;
}
