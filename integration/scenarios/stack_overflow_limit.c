// scenario: a stack overflow under a 1 MiB RLIMIT_STACK (replay runs under the
// driver's own, 8 MiB): the replayed stack has the recorded room, so the
// fault comes at the same depth. Otherwise as stack_overflow_handler: a
// stack overflow into the guard page with a SIGSEGV handler but
// no alternate stack: the kernel has no room for the handler's frame, so it
// forces SIGSEGV again with the default action, and the process dies of it
// (status 139). The recorder sees the delivery fail and records the death;
// replay faults at the same instruction.
// stack-limit: 1048576
// expect-exit: 139
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void handler(int sig) {
  (void)sig;
  _exit(4);  // never runs: there is no stack left for it
}

__attribute__((noinline)) int recurse(int n) {
  volatile char frame[1024];
  frame[0] = (char)n;
  if (n < 0) return 0;  // never: each call goes one frame deeper
  return recurse(n + 1) + frame[0];
}

int main(void) {
  signal(SIGSEGV, handler);
  printf("recursing\n");
  fflush(stdout);
  return recurse(0);
}
