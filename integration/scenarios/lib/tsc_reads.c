// Linked into the buf_rdtsc scenario as a shared library: a library's code
// lies within a jump's reach of the preload library's stubs, where a
// program's own executable (mapped far from the libraries) does not.
#include <stdint.h>
#include <x86intrin.h>

// Reads the counter n times; counts the reads that went back and the odd
// values.
void tsc_reads(int n, long* went_back, long* odd) {
  uint64_t last = 0;
  long back = 0, sum = 0;
  for (int i = 0; i < n; i++) {
    uint64_t now = __rdtsc();
    if (now < last) back++;
    last = now;
    sum += (long)(now & 1);
  }
  *went_back = back;
  *odd = sum;
}
