// scenario: the program behind run_gdb_interrupt.py: seconds of computation
// scenario: with no system call, no signal and no breakpoint in the loop,
// scenario: between two writes; the driver interrupts gdb's `continue` there
#include <stdio.h>

#define PASSES 600000000UL

static volatile unsigned long counter;  // printed by gdb at the interrupt
static unsigned long mix = 1;

static void before_loop(void) {
  mix += 2;
}

int main(void) {
  printf("start\n");
  fflush(stdout);
  before_loop();
  for (counter = 0; counter < PASSES; counter++) {
    mix = mix * 6364136223846793005UL + counter;
  }
  printf("mix=%lx counter=%lu\n", mix, counter);
  return 0;
}
