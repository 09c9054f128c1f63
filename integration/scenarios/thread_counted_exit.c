// scenario: a thread that the recorder counts ends while another computes:
// the short worker's loop becomes its count site after its first
// hand-over, and it returns (exit) in the middle of a counted slice; the
// long worker goes on being handed over at counted positions alone with
// main, which waits in pthread_join.
// requires: threads
#include "thread_util.h"

static void* crunch(void* arg) {
  uint64_t n = (uint64_t)(uintptr_t)arg;
  uint64_t h = n;
  for (uint64_t i = 0; i < n; i++) h = h * 6364136223846793005ull + 1442695040888963407ull;
  return (void*)(uintptr_t)h;
}

int main(void) {
  pthread_t short_one, long_one;
  PCHECK(pthread_create(&long_one, NULL, crunch, (void*)(uintptr_t)400000000ull));
  PCHECK(pthread_create(&short_one, NULL, crunch, (void*)(uintptr_t)120000000ull));
  void* a;
  void* b;
  PCHECK(pthread_join(short_one, &a));
  printf("short worker done: %016llx\n", (unsigned long long)(uintptr_t)a);
  PCHECK(pthread_join(long_one, &b));
  printf("long worker done: %016llx\n", (unsigned long long)(uintptr_t)b);
  return 0;
}
