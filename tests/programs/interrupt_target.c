// The program behind timeline_interrupt_test.cc: a loop without system
// calls, slow enough per pass (pause instructions) that a few thousand passes
// take tens of milliseconds, with a function called every pass (a breakpoint
// target) and its progress in memory (read by the test while it runs).
#include <unistd.h>

#define PASSES 300000UL

volatile unsigned long counter;
volatile unsigned long stage;

__attribute__((noinline)) void before_loop(void) { stage = 1; }

__attribute__((noinline)) void in_loop(unsigned long i) { counter = i; }

int main(void) {
  write(1, "start\n", 6);
  before_loop();
  for (unsigned long i = 1; i <= PASSES; i++) {
#define PAUSE10 "pause; pause; pause; pause; pause; pause; pause; pause; pause; pause;"
    __asm__ volatile(PAUSE10 PAUSE10 PAUSE10 PAUSE10 PAUSE10 PAUSE10 PAUSE10 PAUSE10 ::: "memory");
    in_loop(i);
  }
  write(1, "end\n", 4);
  return counter == PASSES ? 0 : 1;
}
