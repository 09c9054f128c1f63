// scenario: rdtsc and rdtscp (__rdtsc/__rdtscp), printed, and a loop that
// spins until the TSC has advanced by a million cycles.
#include "scenario.h"

#include <x86intrin.h>

int main(void) {
  uint64_t first = __rdtsc();
  uint64_t prev = first;
  int backwards = 0;
  for (int i = 0; i < 1000; i++) {
    uint64_t t = __rdtsc();
    if (t < prev) backwards++;
    prev = t;
  }
  nd("rdtsc first %llu last %llu, went backwards %d times\n", (unsigned long long)first,
     (unsigned long long)prev, backwards);
  printf("rdtsc advanced: %s\n", prev > first ? "yes" : "no");

  unsigned aux = 0;
  uint64_t p = __rdtscp(&aux);
  nd("rdtscp %llu aux %u\n", (unsigned long long)p, aux);
  printf("rdtscp not before rdtsc: %s\n", p >= prev ? "yes" : "no");

  uint64_t start = __rdtsc();
  unsigned long spins = 0;
  while (__rdtsc() - start < 1000000) spins++;
  nd("spins for 1e6 cycles: %lu\n", spins);
  uint64_t sum = 0;
  for (int i = 0; i < 200; i++) sum += __rdtscp(&aux) & 0xff;
  nd("rdtscp low byte sum %llu\n", (unsigned long long)sum);
  printf("done\n");
  return 0;
}
