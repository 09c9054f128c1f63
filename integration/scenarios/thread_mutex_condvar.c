// scenario: a main thread and 7 workers, each doing 10,000 operations on one
// mutex-protected sum, meeting at a condition-variable barrier every 1,000
// operations; the final sum and every round's total are checked.
// requires: threads
#include "thread_util.h"

#define THREADS 8
#define OPS 10000
#define ROUND 1000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t round_done = PTHREAD_COND_INITIALIZER;
static unsigned long long sum;
static int arrived, round_no;
static unsigned long long round_sums[OPS / ROUND];

// A condition-variable barrier: the last thread to arrive records the round's
// sum and wakes the others.
static void barrier(void) {
  PCHECK(pthread_mutex_lock(&lock));
  int my_round = round_no;
  if (++arrived == THREADS) {
    round_sums[round_no] = sum;
    arrived = 0;
    round_no++;
    PCHECK(pthread_cond_broadcast(&round_done));
  } else {
    while (round_no == my_round) PCHECK(pthread_cond_wait(&round_done, &lock));
  }
  PCHECK(pthread_mutex_unlock(&lock));
}

static void* work(void* arg) {
  unsigned long long id = (unsigned long long)(uintptr_t)arg;
  for (int i = 0; i < OPS; i++) {
    PCHECK(pthread_mutex_lock(&lock));
    sum += id * 100000 + (unsigned long long)i;
    PCHECK(pthread_mutex_unlock(&lock));
    if ((i + 1) % ROUND == 0) barrier();
  }
  return NULL;
}

int main(void) {
  pthread_t t[THREADS];
  for (int i = 1; i < THREADS; i++)
    PCHECK(pthread_create(&t[i], NULL, work, (void*)(uintptr_t)i));
  work((void*)(uintptr_t)0);
  for (int i = 1; i < THREADS; i++) PCHECK(pthread_join(t[i], NULL));

  // Each round r adds, per thread id, id*100000*ROUND + sum(i for i in the round).
  unsigned long long expect = 0;
  for (int r = 0; r < OPS / ROUND; r++) {
    for (unsigned long long id = 0; id < THREADS; id++)
      for (int i = r * ROUND; i < (r + 1) * ROUND; i++) expect += id * 100000 + (unsigned long long)i;
    CHECK(round_sums[r] == expect);
    printf("round %d: sum %llu\n", r, round_sums[r]);
  }
  CHECK(sum == expect);
  printf("final sum %llu after %d operations in %d threads\n", sum, THREADS * OPS, THREADS);
  return 0;
}
