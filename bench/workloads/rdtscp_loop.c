/* rdtscp-bound: reads the time-stamp counter and IA32_TSC_AUX N times with
 * rdtscp, nothing else.
 * Usage: rdtscp_loop [COUNT]   (default 200000)
 * The rdtscp counterpart of rdtsc_loop.c: where the kernel does not make
 * rdtscp fault, the recorder patches it into a trap and then into a stub
 * the preload library answers (docs/syscall-buffering.md), so the record
 * and replay times divided by COUNT are the per-read cost of each. Prints
 * one line that does not depend on the values read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

int main(int argc, char **argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 200000ULL;
  uint64_t x = 0;
  unsigned aux = 0;
  for (uint64_t i = 0; i < n; ++i) x ^= __rdtscp(&aux) + aux;
  printf("rdtscp_loop count=%llu%s\n", (unsigned long long)n, x == 1 ? "." : "");
  return 0;
}
