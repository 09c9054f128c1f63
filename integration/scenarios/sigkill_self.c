// scenario: the program sends itself SIGKILL; exit status 137. SIGKILL is
// never seen by the program, only by the recorder.
// expect-exit: 137
#include "scenario.h"

#include <signal.h>

int main(void) {
  printf("sending SIGKILL to myself\n");
  fflush(stdout);
  fprintf(stderr, "last words\n");
  kill(getpid(), SIGKILL);
  printf("not reached\n");
  return 0;
}
