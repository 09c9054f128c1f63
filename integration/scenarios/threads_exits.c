// scenario: how threads end. A thread exits holding a robust mutex (the
// kernel marks it FUTEX_OWNER_DIED as the thread dies: the next locker gets
// EOWNERDEAD), pthread_join waits on a thread's clear-child-tid word, a
// detached thread signals a semaphore before it ends, and finally main
// leaves with pthread_exit while a worker still runs and prints.
#include "scenario.h"

#include <pthread.h>
#include <semaphore.h>

static pthread_mutex_t robust;
static sem_t done;

static void* die_holding(void* arg) {
  (void)arg;
  CHECK(pthread_mutex_lock(&robust) == 0);
  return NULL;
}

static void* detached(void* arg) {
  *(int*)arg = 42;
  SYS(sem_post(&done));
  return NULL;
}

static void* last_one(void* arg) {
  (void)arg;
  for (int i = 0; i < 3; ++i) printf("worker after main left: %d\n", i);
  return NULL;
}

int main(void) {
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
  pthread_mutex_init(&robust, &attr);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, die_holding, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  int r = pthread_mutex_lock(&robust);
  printf("lock after its owner died: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
  CHECK(pthread_mutex_consistent(&robust) == 0);
  CHECK(pthread_mutex_unlock(&robust) == 0);

  SYS(sem_init(&done, 0, 0));
  int value = 0;
  pthread_attr_t detach;
  pthread_attr_init(&detach);
  pthread_attr_setdetachstate(&detach, PTHREAD_CREATE_DETACHED);
  CHECK(pthread_create(&t, &detach, detached, &value) == 0);
  SYS(sem_wait(&done));
  printf("detached thread set %d\n", value);

  fflush(stdout);
  CHECK(pthread_create(&t, NULL, last_one, NULL) == 0);
  pthread_exit(NULL);
}
