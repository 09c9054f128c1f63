// scenario: a breakpoint hit in a second thread stops in that thread
// scenario: ([Switching to Thread ...]), and `continue` hits it again in
// scenario: another thread; `finish` and `stepi` in a thread whose turn has
// scenario: not come yet run the others as recorded until it does
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#define WORKERS 3

static int go[WORKERS][2];  // one pipe per worker: a byte lets it run
static int squares[WORKERS];

static int square(int id) {
  int result = id * id;
  return result;
}

static void* worker(void* arg) {
  long id = (long)arg;
  char name[16];
  snprintf(name, sizeof name, "worker-%ld", id);
  prctl(PR_SET_NAME, name);
  char c;
  read(go[id - 1][0], &c, 1);
  squares[id - 1] = square((int)id);
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
  printf("%d %d %d\n", squares[0], squares[1], squares[2]);
  return 0;
}
