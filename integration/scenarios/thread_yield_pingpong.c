// scenario: two threads alternate 500 times through an atomic turn,
// calling sched_yield() in the wait loop; each step is checked in order.
// requires: threads
#include "thread_util.h"

#include <stdatomic.h>

#define ROUNDS 500

static _Atomic int turn;
static int log_[2 * ROUNDS], pos;

static void* player(void* arg) {
  int me = (int)(intptr_t)arg;
  for (int i = 0; i < ROUNDS; i++) {
    while (atomic_load(&turn) != me) SYS(sched_yield());
    log_[pos++] = me;
    atomic_store(&turn, 1 - me);
  }
  return NULL;
}

int main(void) {
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, player, (void*)(intptr_t)1));
  player((void*)(intptr_t)0);
  PCHECK(pthread_join(t, NULL));
  CHECK(pos == 2 * ROUNDS);
  for (int i = 0; i < pos; i++) CHECK(log_[i] == i % 2);
  printf("%d strictly alternating turns\n", pos);
  return 0;
}
