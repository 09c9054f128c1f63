// scenario: a priority-inheritance mutex (PTHREAD_PRIO_INHERIT, futex
// LOCK_PI/UNLOCK_PI when contended) shared by 4 threads, 1,000 locked
// increments each, plus an error-checking mutex's EDEADLK and EPERM.
// requires: threads
#include "thread_util.h"

#define N 4
#define OPS 1000

static pthread_mutex_t pi;
static long counter;

static void* work(void* arg) {
  (void)arg;
  for (int i = 0; i < OPS; i++) {
    PCHECK(pthread_mutex_lock(&pi));
    long v = counter;
    if (i % 64 == 0) sched_yield();  // hold it across a system call now and then
    counter = v + 1;
    PCHECK(pthread_mutex_unlock(&pi));
  }
  return NULL;
}

static int errcheck_unlock_rc;
static pthread_mutex_t ec;
static void* unlock_foreign(void* arg) {
  (void)arg;
  errcheck_unlock_rc = pthread_mutex_unlock(&ec);
  return NULL;
}

int main(void) {
  pthread_mutexattr_t a;
  PCHECK(pthread_mutexattr_init(&a));
  int rc = pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
  PCHECK(rc);
  PCHECK(pthread_mutex_init(&pi, &a));
  PCHECK(pthread_mutexattr_destroy(&a));
  pthread_t t[N];
  for (int i = 0; i < N; i++) PCHECK(pthread_create(&t[i], NULL, work, NULL));
  for (int i = 0; i < N; i++) PCHECK(pthread_join(t[i], NULL));
  printf("PI mutex: counter %ld (expected %d)\n", counter, N * OPS);
  CHECK(counter == N * OPS);

  PCHECK(pthread_mutexattr_init(&a));
  PCHECK(pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK));
  PCHECK(pthread_mutex_init(&ec, &a));
  PCHECK(pthread_mutex_lock(&ec));
  printf("error-checking mutex, locked twice: %s\n", errname(pthread_mutex_lock(&ec)));
  pthread_t u;
  PCHECK(pthread_create(&u, NULL, unlock_foreign, NULL));
  PCHECK(pthread_join(u, NULL));
  printf("unlocked by another thread: %s\n", errname(errcheck_unlock_rc));
  PCHECK(pthread_mutex_unlock(&ec));
  return 0;
}
