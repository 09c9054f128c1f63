// scenario: exit(7) from a worker thread while main is blocked in
// pthread_join on another worker, which is blocked in pthread_cond_wait:
// atexit handlers and stdio flushing run in the worker, every thread ends.
// expect-exit: 7
// requires: threads
#include "thread_util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static volatile pid_t main_tid_v, waiter_tid;

static void at_exit(void) { printf("atexit handler ran in the %s\n",
                                   thread_tid() == getpid() ? "main thread" : "worker"); }

static void* waiter(void* arg) {
  (void)arg;
  PCHECK(pthread_mutex_lock(&lock));
  publish_tid(&waiter_tid);
  for (;;) PCHECK(pthread_cond_wait(&never, &lock));
  return NULL;
}

static void* exiter(void* arg) {
  (void)arg;
  // Both others are blocked in futex: main in pthread_join, the waiter in
  // pthread_cond_wait.
  wait_blocked_in(await_tid(&waiter_tid), SYS_futex);
  wait_blocked_in(main_tid_v, SYS_futex);
  printf("worker calls exit(7) while the others are blocked\n");  // buffered: exit flushes it
  exit(7);
}

int main(void) {
  main_tid_v = thread_tid();
  CHECK(atexit(at_exit) == 0);
  pthread_t w, e;
  PCHECK(pthread_create(&w, NULL, waiter, NULL));
  PCHECK(pthread_create(&e, NULL, exiter, NULL));
  printf("main joins the waiter\n");
  fflush(stdout);
  pthread_join(w, NULL);
  printf("not reached\n");
  return 0;
}
