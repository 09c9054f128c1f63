// scenario: a robust mutex held by a thread that exits: the next locker gets
// EOWNERDEAD, makes it consistent and uses it; a mutex left inconsistent
// becomes ENOTRECOVERABLE. (The kernel walks the robust list at exit.)
// requires: threads
#include "thread_util.h"

static pthread_mutex_t robust, abandoned;

static void* take_and_exit(void* arg) {
  PCHECK(pthread_mutex_lock((pthread_mutex_t*)arg));
  return NULL;  // exits holding it
}

static void init_robust(pthread_mutex_t* m) {
  pthread_mutexattr_t a;
  PCHECK(pthread_mutexattr_init(&a));
  PCHECK(pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST));
  PCHECK(pthread_mutex_init(m, &a));
  PCHECK(pthread_mutexattr_destroy(&a));
}

int main(void) {
  init_robust(&robust);
  init_robust(&abandoned);
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, take_and_exit, &robust));
  PCHECK(pthread_join(t, NULL));
  int rc = pthread_mutex_lock(&robust);
  printf("lock after the owner died: %s\n", errname(rc));
  CHECK(rc == EOWNERDEAD);
  PCHECK(pthread_mutex_consistent(&robust));
  PCHECK(pthread_mutex_unlock(&robust));
  rc = pthread_mutex_lock(&robust);
  printf("lock after consistent + unlock: %s\n", errname(rc));
  PCHECK(pthread_mutex_unlock(&robust));

  PCHECK(pthread_create(&t, NULL, take_and_exit, &abandoned));
  PCHECK(pthread_join(t, NULL));
  rc = pthread_mutex_trylock(&abandoned);
  printf("trylock after the owner died: %s\n", errname(rc));
  PCHECK(pthread_mutex_unlock(&abandoned));  // without pthread_mutex_consistent
  rc = pthread_mutex_lock(&abandoned);
  printf("lock of a mutex left inconsistent: %s\n", errname(rc));
  CHECK(rc == ENOTRECOVERABLE);
  return 0;
}
