// scenario: reverse-stepi from a breakpoint right after a computation of
// scenario: ~10^8 instructions without a system call, then more steps back
// scenario: and forward, a reverse-finish out of the computation's function
// scenario: and a reverse-continue to a breakpoint inside it; the values of the loop's variables at each place
// requires: debug-registers
// timeout: 900
#include <stdio.h>
#include <unistd.h>

long work(long n) {
  long s = 0, i;
  for (i = 0; i < n; i++)
    s += i ^ (s >> 1);
  return s;
}

int main(void) {
  long n = 12500000;
  getppid();
  long s = work(n);
  printf("s=%ld\n", s);
  return 0;
}

// The first reverse-stepi back into 10^8 instructions is approached by
// counting passes with a hardware breakpoint; where debug registers never
// fire, it single-steps the stretch, far past the test's limit.
#include "debug_registers_probe.h"
