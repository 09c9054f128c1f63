// scenario: a pool of 4 worker threads takes 300 jobs from a queue guarded by
// a mutex and two condition variables (not empty / not full, capacity 8);
// main submits them, then a stop marker per worker, and checks every result.
// requires: threads
#include "thread_util.h"

#define WORKERS 4
#define JOBS 300
#define CAP 8

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static int queue[CAP], head, count;
static uint64_t results[JOBS];
static int done_by[WORKERS];

static void push(int job) {
  PCHECK(pthread_mutex_lock(&lock));
  while (count == CAP) PCHECK(pthread_cond_wait(&not_full, &lock));
  queue[(head + count) % CAP] = job;
  count++;
  PCHECK(pthread_cond_signal(&not_empty));
  PCHECK(pthread_mutex_unlock(&lock));
}

static int pop(void) {
  PCHECK(pthread_mutex_lock(&lock));
  while (count == 0) PCHECK(pthread_cond_wait(&not_empty, &lock));
  int job = queue[head];
  head = (head + 1) % CAP;
  count--;
  PCHECK(pthread_cond_signal(&not_full));
  PCHECK(pthread_mutex_unlock(&lock));
  return job;
}

static uint64_t compute(int job) {
  uint64_t h = FNV_INIT;
  for (int i = 0; i <= job; i++) h = fnv1a(&i, sizeof i, h);
  return h;
}

static void* worker(void* arg) {
  int me = (int)(intptr_t)arg;
  for (;;) {
    int job = pop();
    if (job < 0) return NULL;
    results[job] = compute(job);  // each job is taken by exactly one worker
    done_by[me]++;
  }
}

int main(void) {
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; i++) PCHECK(pthread_create(&t[i], NULL, worker, (void*)(intptr_t)i));
  for (int j = 0; j < JOBS; j++) push(j);
  for (int i = 0; i < WORKERS; i++) push(-1);
  int total = 0;
  for (int i = 0; i < WORKERS; i++) {
    PCHECK(pthread_join(t[i], NULL));
    nd("worker %d did %d jobs\n", i, done_by[i]);
    total += done_by[i];
  }
  CHECK(total == JOBS);
  uint64_t all = FNV_INIT;
  for (int j = 0; j < JOBS; j++) {
    CHECK(results[j] == compute(j));
    all = fnv1a(&results[j], sizeof results[j], all);
  }
  printf("%d jobs done by %d workers, results checksum %016llx\n", total, WORKERS,
         (unsigned long long)all);
  return 0;
}
