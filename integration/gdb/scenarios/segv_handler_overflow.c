// scenario: a stack overflow with a SIGSEGV handler but no alternate stack:
// the kernel cannot write the handler's frame and forces a SIGSEGV with the
// default action. gdb stops twice, as natively: at the fault (its siginfo
// the fault's), then at the forced signal (SI_KERNEL), then the program is
// killed by it.
// expect-exit: 139
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_segv(int sig) {
  (void)sig;
  _exit(4);  // never runs: there is no stack left for its frame
}

static int deep(int n) {
  volatile char frame[4096];
  memset((char*)frame, n, sizeof frame);
  return deep(n + 1) + frame[n % 4096];
}

int main(void) {
  signal(SIGSEGV, on_segv);
  printf("recursing\n");
  fflush(stdout);
  return deep(1);
}
