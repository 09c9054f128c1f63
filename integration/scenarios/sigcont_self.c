// scenario: SIGCONT sent to itself, ignored by default and then caught: the
// recorder (a seizing tracer, which the kernel notifies of every SIGCONT)
// must record it like any other signal.
#include "scenario.h"

#include <signal.h>

static volatile sig_atomic_t conts;
static void on_cont(int sig) {
  (void)sig;
  conts++;
}

int main(void) {
  for (int i = 0; i < 3; ++i) SYS(kill(getpid(), SIGCONT));
  printf("default action: still running\n");
  struct sigaction sa = {0};
  sa.sa_handler = on_cont;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGCONT, &sa, NULL));
  for (int i = 0; i < 3; ++i) SYS(raise(SIGCONT));
  printf("handled %d\n", (int)conts);
  return 0;
}
