// scenario: reverse-continue from the main thread, across thread switches,
// scenario: to the write of a watched variable by another thread (which has
// scenario: ended by then), then forwards to the same write
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#define WORKERS 3

static int go[WORKERS][2];  // one pipe per worker: a byte lets it run
static int shared;          // written by worker 2 only
static int sums[WORKERS];

static void all_joined(void) {}

static void* worker(void* arg) {
  long id = (long)arg;
  char name[16];
  snprintf(name, sizeof name, "worker-%ld", id);
  prctl(PR_SET_NAME, name);
  char c;
  read(go[id - 1][0], &c, 1);
  if (id == 2) shared = 42;
  sums[id - 1] = (int)id * 10;
  return NULL;
}

int main(void) {
  pthread_t threads[WORKERS];
  for (long i = 0; i < WORKERS; i++) {
    pipe(go[i]);
    pthread_create(&threads[i], NULL, worker, (void*)(i + 1));
  }
  // One worker at a time, in order.
  for (int i = 0; i < WORKERS; i++) {
    write(go[i][1], "x", 1);
    pthread_join(threads[i], NULL);
  }
  all_joined();
  printf("shared=%d\n", shared);
  return 0;
}
