// scenario: read and access watchpoints seen without debug registers too:
// scenario: a variable read, written and read again in a loop, forwards and
// scenario: backwards (rwatch reports the reads, never the writes; awatch both)
#include <sched.h>
#include <stdio.h>

static int v = 10;
static int sink;

static void first_read(void) {
  sink += v;
}

static void write_it(int i) {
  v = i * 3;
}

static void second_read(void) {
  sink -= v;
}

int main(void) {
  for (int i = 1; i <= 3; i++) {
    sched_yield();  // an event: reverse-continue searches from close by
    first_read();
    write_it(i);
    second_read();
  }
  printf("sink=%d\n", sink);
  return 0;
}
