// scenario: reverse-continue across 1,000,000 hits of a breakpoint in a loop without system calls, at most 3 checkpoints
// requires: debug-registers
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


// Counting 10^6 hits in the kernel needs debug registers that fire; without,
// each hit is a ptrace stop and the run takes longer than the test's limit.
#include "debug_registers_probe.h"
