// scenario: 5 detached threads each compute a value and post a semaphore;
// main waits for all five through the semaphore (no join, no sleep). Each
// thread checks that it is detached.
// requires: threads
#include "thread_util.h"

#include <semaphore.h>

#define N 5

static sem_t finished;
static uint64_t values[N];

static void* work(void* arg) {
  int i = (int)(intptr_t)arg;
  pthread_attr_t attr;
  int state = -1;
  PCHECK(pthread_getattr_np(pthread_self(), &attr));
  PCHECK(pthread_attr_getdetachstate(&attr, &state));
  PCHECK(pthread_attr_destroy(&attr));
  CHECK(state == PTHREAD_CREATE_DETACHED);
  uint64_t h = FNV_INIT;
  for (int k = 0; k < 1000 * (i + 1); k++) h = fnv1a(&k, sizeof k, h);
  values[i] = h;
  SYS(sem_post(&finished));
  return NULL;
}

int main(void) {
  SYS(sem_init(&finished, 0, 0));
  pthread_attr_t attr;
  PCHECK(pthread_attr_init(&attr));
  PCHECK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED));
  pthread_t t[N];
  for (int i = 0; i < N; i++) PCHECK(pthread_create(&t[i], &attr, work, (void*)(intptr_t)i));
  PCHECK(pthread_attr_destroy(&attr));
  for (int i = 0; i < N; i++) {
    while (sem_wait(&finished) != 0) CHECK(errno == EINTR);
  }
  for (int i = 0; i < N; i++) printf("thread %d: %016llx\n", i, (unsigned long long)values[i]);
  printf("all %d detached threads reported\n", N);
  return 0;
}
