// scenario: two threads each run a tight integer loop without system calls
// for about half a second, while the other waits for the CPU. The recorder
// hands the CPU from one to the other every slice; after the first
// hand-over at a digest position, each is a counted one (the loop's
// instruction and the number of arrivals at it), which replay reaches by
// counting in the thread itself.
// requires: threads
#include "thread_util.h"

static void* crunch(void* arg) {
  uint64_t h = (uint64_t)(uintptr_t)arg;
  for (uint64_t i = 0; i < 150000000ull; i++) h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + i;
  return (void*)(uintptr_t)h;
}

int main(void) {
  pthread_t t[2];
  for (uintptr_t i = 0; i < 2; i++) PCHECK(pthread_create(&t[i], NULL, crunch, (void*)(i + 1)));
  uint64_t sum = 0;
  for (int i = 0; i < 2; i++) {
    void* h;
    PCHECK(pthread_join(t[i], &h));
    sum ^= (uint64_t)(uintptr_t)h;
  }
  printf("two loops, xor of their hashes %016llx\n", (unsigned long long)sum);
  return 0;
}
