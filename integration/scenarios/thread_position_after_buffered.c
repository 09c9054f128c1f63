// scenario: a thread makes a buffered call, then computes without system
// calls long enough to be handed over at forced positions (each stores the
// program's state, which replay --autopilot loads at once), then makes a
// call the library could buffer but that recording traced (a pipe write
// larger than PIPE_BUF). Loading a position must leave the thread's buffer
// as it was there, with the earlier call's record consumed, or the later
// call would take that record in replay.
// requires: threads
#include "scenario.h"

#include <pthread.h>

enum { kCells = 1 << 16, kBig = 8192 };
static volatile unsigned long cells[kCells];
static int pipe_fds[2];
static volatile int stop;

static void* worker(void* arg) {
  (void)arg;
  for (int round = 0; round < 3; round++) {
    CHECK(getppid() > 0);  // buffered
    for (unsigned long i = 0; i < 600000000; i++) cells[i % kCells] += i;
    static char big[kBig];
    memset(big, 'a' + round, sizeof big);
    CHECK(write(pipe_fds[1], big, sizeof big) == kBig);  // traced: larger than PIPE_BUF
  }
  return NULL;
}

static void* spinner(void* arg) {
  (void)arg;
  volatile unsigned long x = 0;
  while (!stop) x++;
  return NULL;
}

int main(void) {
  SYS(pipe(pipe_fds));
  pthread_t w, s;
  CHECK(pthread_create(&s, NULL, spinner, NULL) == 0);
  CHECK(pthread_create(&w, NULL, worker, NULL) == 0);
  CHECK(pthread_join(w, NULL) == 0);
  stop = 1;
  CHECK(pthread_join(s, NULL) == 0);
  unsigned long sum = 0;
  for (int i = 0; i < kCells; i++) sum += cells[i];
  static char in[3 * kBig];
  size_t got = 0;
  while (got < sizeof in) {
    ssize_t r = read(pipe_fds[0], in + got, sizeof in - got);
    CHECK(r > 0);
    got += (size_t)r;
  }
  printf("sum %lu, read %zu bytes: %c %c %c\n", sum, got, in[0], in[kBig], in[2 * kBig]);
  return 0;
}
