// scenario: a stack overflow into the guard page with a SIGSEGV handler but
// no alternate stack: the kernel has no room for the handler's frame, so it
// forces SIGSEGV again with the default action, and the process dies of it
// (status 139). The recorder sees the delivery fail and records the death;
// replay faults at the same instruction.
// expect-exit: 139
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "stack_overflow.h"

static void handler(int sig) {
  (void)sig;
  _exit(4);  // never runs: there is no stack left for it
}

int main(void) {
  signal(SIGSEGV, handler);
  printf("recursing\n");
  fflush(stdout);
  return recurse(0);
}
