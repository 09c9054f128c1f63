// scenario: reverse-continue across 1,000,000 hits of a breakpoint in a loop
// scenario: without system calls, with at most 3 automatic checkpoints
// timeout: 600
#include <stdio.h>

static volatile long total;

__attribute__((noinline)) static void tick(long i) {
  total += i;
}

int main(void) {
  total = 7;
  for (long i = 0; i < 1000000; i++) tick(i);
  printf("total=%ld\n", total);
  return 0;
}
