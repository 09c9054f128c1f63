/* CPU-bound: integer hashing in a tight loop, no system calls in the loop.
 * Usage: cpu_hash [ITERATIONS]   (default 400000000)
 * Prints one line with the final hash so the loop cannot be optimised away. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline uint64_t mix64(uint64_t x) {
  /* splitmix64 finaliser */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

int main(int argc, char **argv) {
  uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 400000000ULL;
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (uint64_t i = 0; i < n; ++i) h = mix64(h + i);
  printf("cpu_hash iterations=%llu hash=%016llx\n", (unsigned long long)n, (unsigned long long)h);
  return 0;
}
