// scenario: rdtsc_spin_threads where rdtsc sites are patched into trapping
// instructions (forced with BACKSTEP_PATCH_RDTSC=1; the default where the
// kernel cannot make rdtsc fault): the library then reads the counter
// itself, and the threads are handed over as there.
// requires: threads
// record-env: BACKSTEP_PATCH_RDTSC=1
// expect-buffered: 1000
#include "rdtsc_spin_threads.c"
