// A worker's loop writes a variable at each of its 24 passes; halfway it
// waits for the main thread, spinning without system calls, so that the
// recorder hands the CPU over at a forced position in the middle of the
// loop. A watchpoint on the variable must report every write with its old
// and new values, as gdb run natively on the program does (with a
// software watchpoint), forwards and mirrored going backwards.
// The main thread first computes for about half a second, so that replay
// leaves an automatic checkpoint (one is due after 250 ms) just before the
// worker starts: where debug registers never fire, a reverse search with a
// watchpoint single-steps from the last checkpoint, and from the start of
// the program each reverse-continue would take seconds.
// compare: native gdb
// expect-positions: 1
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#define PASSES 24

static volatile uint64_t total;  // written by the worker's loop only
static volatile int halfway;     // the worker is halfway through its loop
static volatile int go_on;       // the main thread lets it go on

__attribute__((noinline)) void loop_done(void) {}

static void* worker(void* arg) {
  (void)arg;
  for (uint64_t i = 1; i <= PASSES; i++) {
    total = total * 3 + i;
    if (i == PASSES / 2) {
      halfway = 1;
      while (!go_on) {}
    }
  }
  loop_done();
  return NULL;
}

static uint64_t warm_up(void) {
  uint64_t h = 1;
  for (uint64_t i = 0; i < 300000000ull; i++) h = (h ^ (h >> 29)) * 0xbf58476d1ce4e5b9ull + i;
  return h;
}

int main(void) {
  uint64_t h = warm_up();
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!halfway) {}
  go_on = 1;
  pthread_join(t, NULL);
  printf("total %llu (warm-up %llx)\n", (unsigned long long)total, (unsigned long long)h);
  return 0;
}
