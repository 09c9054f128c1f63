// scenario: pthread_cancel of a thread blocked in pthread_cond_wait: the
// thread reacquires the mutex, its cleanup handler unlocks it, and main can
// lock the mutex and use the condition variable again.
// requires: threads
#include "thread_util.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int waiting, never;
static int cleanup_held_lock;

static void unlock_on_cancel(void* arg) {
  (void)arg;
  // The mutex is held again when a cancelled cond_wait runs the handlers.
  cleanup_held_lock = pthread_mutex_trylock(&lock) == EBUSY;
  PCHECK(pthread_mutex_unlock(&lock));
}

static void* waiter(void* arg) {
  (void)arg;
  PCHECK(pthread_mutex_lock(&lock));
  pthread_cleanup_push(unlock_on_cancel, NULL);
  waiting = 1;
  PCHECK(pthread_cond_broadcast(&cond));
  while (!never) PCHECK(pthread_cond_wait(&cond, &lock));
  pthread_cleanup_pop(1);
  return NULL;
}

int main(void) {
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, waiter, NULL));
  PCHECK(pthread_mutex_lock(&lock));
  while (!waiting) PCHECK(pthread_cond_wait(&cond, &lock));
  // The waiter released the mutex inside pthread_cond_wait: it is waiting now.
  PCHECK(pthread_mutex_unlock(&lock));
  printf("waiter is in pthread_cond_wait\n");
  PCHECK(pthread_cancel(t));
  void* ret = NULL;
  PCHECK(pthread_join(t, &ret));
  CHECK(ret == PTHREAD_CANCELED);
  printf("joined: PTHREAD_CANCELED, cleanup held the mutex: %s\n", cleanup_held_lock ? "yes" : "no");
  PCHECK(pthread_mutex_lock(&lock));
  PCHECK(pthread_cond_signal(&cond));
  PCHECK(pthread_mutex_unlock(&lock));
  printf("mutex free again\n");
  return 0;
}
