// scenario: two threads hand a token back and forth 100 times through an
// _Atomic int, with no system call in either wait loop (a recorder that
// switches threads only at system calls starves here).
// requires: threads
#include "thread_util.h"

#include <stdatomic.h>

#define HANDOFFS 100

static _Atomic int turn;  // 0: main's turn, 1: the worker's
static uint64_t trail;    // written only by the token's holder

static void* worker(void* arg) {
  (void)arg;
  for (int i = 0; i < HANDOFFS; i++) {
    while (atomic_load_explicit(&turn, memory_order_acquire) != 1) {
    }
    trail = trail * 31 + 2 + (uint64_t)i;
    atomic_store_explicit(&turn, 0, memory_order_release);
  }
  return NULL;
}

int main(void) {
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, worker, NULL));
  for (int i = 0; i < HANDOFFS; i++) {
    while (atomic_load_explicit(&turn, memory_order_acquire) != 0) {
    }
    trail = trail * 31 + 1 + (uint64_t)i;
    atomic_store_explicit(&turn, 1, memory_order_release);
  }
  while (atomic_load_explicit(&turn, memory_order_acquire) != 0) {
  }
  PCHECK(pthread_join(t, NULL));
  uint64_t expect = 0;
  for (int i = 0; i < HANDOFFS; i++) expect = (expect * 31 + 1 + (uint64_t)i) * 31 + 2 + (uint64_t)i;
  CHECK(trail == expect);
  printf("%d hand-offs each way, trail %016llx\n", HANDOFFS, (unsigned long long)trail);
  return 0;
}
