// scenario: a stack overflow into the guard page with a SIGSEGV handler on
// an alternate signal stack: the handler runs there, reports the fault and
// leaves with _exit(3).
// expect-exit: 3
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "stack_overflow.h"

static char alternate[64 * 1024];

static void handler(int sig, siginfo_t* info, void* context) {
  (void)context;
  char line[64];
  int len = snprintf(line, sizeof line, "caught signal %d, code %s\n", sig,
                     info->si_code == SEGV_MAPERR || info->si_code == SEGV_ACCERR ? "fault" : "other");
  write(1, line, (size_t)len);
  _exit(3);
}

int main(void) {
  stack_t ss;
  memset(&ss, 0, sizeof ss);
  ss.ss_sp = alternate;
  ss.ss_size = sizeof alternate;
  if (sigaltstack(&ss, NULL) != 0) return 2;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigaction(SIGSEGV, &sa, NULL);
  printf("recursing\n");
  fflush(stdout);
  return recurse(0);
}
