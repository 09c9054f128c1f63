// scenario: a checkpoint taken while four threads exist (one waiting on a
// condition variable, two blocked in read on pipes, one spinning on an
// atomic flag), then `run cN` and on to the end: every thread comes back
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static int released;
static _Atomic int spin_flag;
static int pipes[2][2];
static long results[4];

static void* waiter(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!released) pthread_cond_wait(&go, &lock);
  pthread_mutex_unlock(&lock);
  results[0] = 10;
  return NULL;
}

static void* reader(void* arg) {
  long i = (long)arg;
  char c = 0;
  long n = read(pipes[i][0], &c, 1);
  results[1 + i] = n * c;
  return NULL;
}

static void* spinner(void* arg) {
  (void)arg;
  while (!atomic_load(&spin_flag)) {
  }
  results[3] = 40;
  return NULL;
}

static void all_started(void) {}

int main(void) {
  pipe(pipes[0]);
  pipe(pipes[1]);
  pthread_t t[4];
  pthread_create(&t[0], NULL, waiter, NULL);
  pthread_create(&t[1], NULL, reader, (void*)0);
  pthread_create(&t[2], NULL, reader, (void*)1);
  pthread_create(&t[3], NULL, spinner, NULL);
  all_started();
  write(pipes[0][1], "\x14", 1);
  write(pipes[1][1], "\x1e", 1);
  pthread_mutex_lock(&lock);
  released = 1;
  pthread_cond_broadcast(&go);
  pthread_mutex_unlock(&lock);
  atomic_store(&spin_flag, 1);
  for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
  printf("results %ld %ld %ld %ld\n", results[0], results[1], results[2], results[3]);
  return 0;
}
