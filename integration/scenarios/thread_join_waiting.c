// scenario: pthread_join on a thread that exits while the joiner already
// waits in the kernel: the worker looks until main is blocked in futex
// (inside pthread_join), then returns a value (the kernel clears the tid
// and wakes the joiner).
// requires: threads
#include "thread_util.h"

static pid_t main_tid;

static void* worker(void* arg) {
  (void)arg;
  long polls = wait_blocked_in(main_tid, SYS_futex);
  return (void*)(intptr_t)(polls > 0 ? 4242 : -1);
}

int main(void) {
  main_tid = thread_tid();
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, worker, NULL));
  void* ret = NULL;
  PCHECK(pthread_join(t, &ret));
  printf("joined a thread that exited while main waited: returned %ld\n", (long)(intptr_t)ret);
  CHECK((intptr_t)ret == 4242);
  return 0;
}
