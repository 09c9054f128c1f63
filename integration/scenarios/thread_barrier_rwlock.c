// scenario: pthread_barrier phases and a pthread_rwlock: 4 threads, 5
// phases; in each, every thread reads a shared table under the read lock,
// then one writer (the barrier's serial thread) updates it under the write
// lock; the per-phase checksums each thread saw must agree.
// requires: threads
#include "thread_util.h"

#define N 4
#define PHASES 5
#define SIZE 256

static pthread_barrier_t barrier;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static uint32_t table[SIZE];
static uint64_t seen[N][PHASES];
static int serial_count[PHASES];

static void* work(void* arg) {
  int id = (int)(intptr_t)arg;
  for (int p = 0; p < PHASES; p++) {
    PCHECK(pthread_rwlock_rdlock(&rw));
    seen[id][p] = fnv1a(table, sizeof table, FNV_INIT);
    PCHECK(pthread_rwlock_unlock(&rw));
    int rc = pthread_barrier_wait(&barrier);
    CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
    if (rc == PTHREAD_BARRIER_SERIAL_THREAD) {
      PCHECK(pthread_rwlock_wrlock(&rw));
      for (int i = 0; i < SIZE; i++) table[i] = table[i] * 33 + (uint32_t)(p + i);
      serial_count[p]++;
      PCHECK(pthread_rwlock_unlock(&rw));
    }
    rc = pthread_barrier_wait(&barrier);
    CHECK(rc == 0 || rc == PTHREAD_BARRIER_SERIAL_THREAD);
  }
  return NULL;
}

int main(void) {
  PCHECK(pthread_barrier_init(&barrier, NULL, N));
  pthread_t t[N];
  for (int i = 1; i < N; i++) PCHECK(pthread_create(&t[i], NULL, work, (void*)(intptr_t)i));
  work((void*)(intptr_t)0);
  for (int i = 1; i < N; i++) PCHECK(pthread_join(t[i], NULL));
  for (int p = 0; p < PHASES; p++) {
    for (int i = 1; i < N; i++) CHECK(seen[i][p] == seen[0][p]);
    printf("phase %d: all %d readers saw %016llx, %d writer(s)\n", p, N,
           (unsigned long long)seen[0][p], serial_count[p]);
  }
  printf("final table %016llx\n", (unsigned long long)fnv1a(table, sizeof table, FNV_INIT));
  return 0;
}
