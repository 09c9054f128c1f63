// scenario: the program kills itself with SIGTERM (default action); exit
// status 143. A handler for SIGUSR1 installed first is not involved.
// expect-exit: 143
#include "scenario.h"

#include <signal.h>

static void unused(int sig) { (void)sig; }

int main(void) {
  signal(SIGUSR1, unused);
  printf("sending SIGTERM to myself\n");
  fflush(stdout);
  kill(getpid(), SIGTERM);
  for (;;) pause();
}
