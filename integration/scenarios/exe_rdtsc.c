// scenario: rdtsc and rdtscp in the program's own executable, read by the
// preload library. The executable is mapped far from the libraries, out of
// a rel32 jump's reach of the library's stub area; the recorder maps a stub
// area of its own just below the executable at exec (engine/core/tool_page.h)
// whose stubs enter the library through veneers, so that these sites too
// stop trapping after their first read: 7,500 reads, all but the first
// of each site buffered (rdtscp with its auxiliary value in ecx). Three
// threads read the counter in loops and check that it never goes back
// within a thread; replay must give every value back, aux included.
// requires: threads
// record-env: BACKSTEP_PATCH_RDTSC=1
// expect-buffered: 7000
#include <x86intrin.h>

#include "thread_util.h"

#define READS 2000

static long went_back[3], odd[3], tscp_back[3];
static unsigned aux_mix[3];

// Kept out of line (and out of main) so that each is one site of the
// executable's text, read in a loop.
static __attribute__((noinline)) void reads(long id) {
  unsigned long long last = 0, last_p = 0;
  for (int i = 0; i < READS; i++) {
    unsigned long long now = __rdtsc();
    if (now < last) went_back[id]++;
    last = now;
    odd[id] += (long)(now & 1);
    if (i % 4 == 0) {
      unsigned aux;
      unsigned long long p = __rdtscp(&aux);
      if (p < last_p || p < now) tscp_back[id]++;
      aux_mix[id] = aux_mix[id] * 31 + aux;
      last_p = p;
    }
  }
}

static void* reader(void* arg) {
  reads((long)arg);
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) PCHECK(pthread_create(&t[i], NULL, reader, (void*)(i + 1)));
  reader((void*)0);
  for (int i = 0; i < 2; i++) PCHECK(pthread_join(t[i], NULL));
  for (int i = 0; i < 3; i++) {
    printf("thread %d: %d reads, %ld went back, rdtscp %ld went back\n", i, READS, went_back[i], tscp_back[i]);
    nd("thread %d: odd values %ld, rdtscp aux %u\n", i, odd[i], aux_mix[i]);
  }
  return 0;
}
