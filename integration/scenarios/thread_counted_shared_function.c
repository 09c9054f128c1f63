// scenario: three threads call the same computing function, whose loop is
// the count site of each of them in turn: the recorder counts only the
// running thread's arrivals (one thread runs at a time), and replay must
// stop each thread at exactly its own N-th arrival in the shared code.
// requires: threads
#include "thread_util.h"

__attribute__((noinline)) static uint64_t shared_loop(uint64_t seed, uint64_t n) {
  uint64_t h = seed;
  for (uint64_t i = 0; i < n; i++) {
    h += i;
    h ^= h << 13;
    h ^= h >> 7;
    h ^= h << 17;
  }
  return h;
}

static void* worker(void* arg) {
  uint64_t seed = (uint64_t)(uintptr_t)arg;
  uint64_t h = 0;
  for (int round = 0; round < 4; round++) h ^= shared_loop(seed + (uint64_t)round, 25000000ull);
  return (void*)(uintptr_t)h;
}

int main(void) {
  pthread_t t[3];
  for (uintptr_t i = 0; i < 3; i++) PCHECK(pthread_create(&t[i], NULL, worker, (void*)(i * 1000 + 7)));
  for (int i = 0; i < 3; i++) {
    void* h;
    PCHECK(pthread_join(t[i], &h));
    printf("worker %d: %016llx\n", i, (unsigned long long)(uintptr_t)h);
  }
  return 0;
}
