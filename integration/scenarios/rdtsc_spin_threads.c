// scenario: a thread reads the time-stamp counter in a tight loop (rdtsc and
// rdtscp in turn) until another thread, which computes without a system
// call, is done. The reads go through the preload library after each site's
// first trap, so the spinning thread spends most of its time in the
// library's code, where the recorder hands the threads over: no position
// may be named there (replay runs other code in the library than recording
// did), or the replay finds the wrong pass and diverges. The counter never
// goes back, and the replay gives every value back.
// requires: threads
// expect-buffered: 1000
#include "thread_util.h"

#include <stdatomic.h>
#include <x86intrin.h>

static atomic_int done;
static volatile uint64_t sink;

static void* worker(void* arg) {
  (void)arg;
  uint64_t x = 1;
  for (long i = 0; i < 150000000; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
  sink = x;
  atomic_store(&done, 1);
  return NULL;
}

int main(void) {
  pthread_t t;
  CHECK(pthread_create(&t, NULL, worker, NULL) == 0);
  uint64_t reads = 0, back = 0, first = __rdtsc(), last = first;
  unsigned aux = 0;
  while (!atomic_load(&done)) {
    uint64_t now = (reads & 1) ? __rdtscp(&aux) : __rdtsc();
    if (now < last) back++;
    last = now;
    reads++;
  }
  CHECK(pthread_join(t, NULL) == 0);
  nd("reads %llu, first %llu, last %llu\n", (unsigned long long)reads, (unsigned long long)first,
     (unsigned long long)last);
  printf("worker result %llx\n", (unsigned long long)sink);
  printf("spun: %s, went back %llu times, advanced: %s\n", reads > 0 ? "yes" : "no", (unsigned long long)back,
         last > first ? "yes" : "no");
  return 0;
}
