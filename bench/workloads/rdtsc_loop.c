/* rdtsc-bound: reads the time-stamp counter N times, nothing else.
 * Usage: rdtsc_loop [COUNT]   (default 200000)
 * Under record every rdtsc traps to the recorder (PR_TSC_SIGSEGV) and is
 * emulated, and replay places each recorded value back, so the record and
 * replay times divided by COUNT are the per-rdtsc cost of each. Prints one
 * line that does not depend on the values read, so that native, recorded
 * and replayed output are equal; the xor of the values keeps the loop alive. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

int main(int argc, char **argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000ULL;
  uint64_t x = 0;
  for (uint64_t i = 0; i < n; ++i) x ^= __rdtsc();
  printf("rdtsc_loop count=%llu%s\n", (unsigned long long)n, x == 1 ? "." : "");
  return 0;
}
