// Driven by tests/checkpoint_bound_test.cc: three stretches of tick() calls
// without system calls, a write between them (so both checkpoints inside
// an interval and at event boundaries are made and evicted), rewriting
// a megabyte as they go. tock() runs at every seventh tick (a second
// breakpoint whose hits interleave with tick's, for counted_walk_test).
#include <unistd.h>

#define PER_ROUND 300

long total = 0;
long history[64];
// 1 MiB rewritten page by page, over and over: each checkpoint ends up
// holding its own copy of the pages written after it (the memory bound).
long pages[256][512];

__attribute__((noinline)) void tick(long i) {
  total += i;
  history[i % 64] = total;
  pages[i % 256][0] = i;
}

__attribute__((noinline)) void tock(long i) { history[(i * 7) % 64] ^= i; }

int main(void) {
  for (long round = 0; round < 3; round++) {
    for (long i = 0; i < PER_ROUND; i++) {
      tick(round * PER_ROUND + i);
      if (i % 7 == 0) tock(i);
    }
    if (write(1, ".", 1) != 1) return 1;
  }
  return (int)(total % 200);
}
