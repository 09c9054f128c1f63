// scenario: reverse-stepi in a thread whose read() has just returned, after
// scenario: other threads ran while it waited, goes back to its own syscall
// scenario: instruction (not to whatever another thread ran last), and
// scenario: stepi forwards again returns from the call
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#define WORKERS 3

static int go[WORKERS][2];  // one pipe per worker: a byte lets it run
static int squares[WORKERS];
static pthread_barrier_t all_started;

static int square(int id) {
  int result = id * id;
  return result;
}

static void* worker(void* arg) {
  long id = (long)arg;
  char name[16];
  snprintf(name, sizeof name, "worker-%ld", id);
  prctl(PR_SET_NAME, name);
  // Every thread exists before any worker reads.
  pthread_barrier_wait(&all_started);
  char c;
  read(go[id - 1][0], &c, 1);
  squares[id - 1] = square((int)id);
  return NULL;
}

int main(void) {
  pthread_t threads[WORKERS];
  pthread_barrier_init(&all_started, NULL, WORKERS + 1);
  for (long i = 0; i < WORKERS; i++) {
    pipe(go[i]);
    pthread_create(&threads[i], NULL, worker, (void*)(i + 1));
  }
  pthread_barrier_wait(&all_started);
  // One worker at a time, in order.
  for (int i = 0; i < WORKERS; i++) {
    write(go[i][1], "x", 1);
    pthread_join(threads[i], NULL);
  }
  printf("%d %d %d\n", squares[0], squares[1], squares[2]);
  return 0;
}
