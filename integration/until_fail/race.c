// The program behind run_until_fail.py's chaos subtest: two threads add to
// one counter with a plain load and store each, 100 million times; an update
// is lost only when a thread is cut between its load and its store and the
// other runs meanwhile. Recorded with the usual schedule the threads are cut
// rarely (and at a site the recorder reuses); `record --chaos` cuts them at
// random points, and the total comes out short. Exit status 1 then.
#include <pthread.h>
#include <stdio.h>

#define PASSES 100000000L

static volatile long counter;

static void* add(void* arg) {
  (void)arg;
  for (long i = 0; i < PASSES; i++) {
    long v = counter;
    counter = v + 1;
  }
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, add, NULL);
  pthread_create(&b, NULL, add, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("counter %ld of %ld\n", counter, 2 * PASSES);
  return counter == 2 * PASSES ? 0 : 1;
}
