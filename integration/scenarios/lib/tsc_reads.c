// Linked into the buf_rdtsc scenario as a shared library: a library's code
// lies within a jump's reach of the preload library's stubs, where a
// program's own executable (mapped far from the libraries) does not.
#include <stdint.h>
#include <x86intrin.h>

// Reads the counter n times, and with rdtscp every fourth time; counts the
// reads that went back and the odd values, and mixes rdtscp's auxiliary
// values (the CPU's number) into *aux_mix.
void tsc_reads(int n, long* went_back, long* odd, unsigned* aux_mix) {
  uint64_t last = 0;
  long back = 0, sum = 0;
  unsigned mix = 0;
  for (int i = 0; i < n; i++) {
    uint64_t now = __rdtsc();
    if (now < last) back++;
    last = now;
    sum += (long)(now & 1);
    if (i % 4 == 0) {
      unsigned aux;
      uint64_t p = __rdtscp(&aux);
      if (p < last) back++;
      last = p;
      mix = mix * 31 + aux;
    }
  }
  *went_back = back;
  *odd = sum;
  *aux_mix = mix;
}
