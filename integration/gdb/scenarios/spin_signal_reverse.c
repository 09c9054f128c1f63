// scenario: a SIGALRM arrives while main spins on a flag without system
// calls (a position the recorder names by the program's state); from the
// signal's stop, reverse-stepi goes to the loop's instruction before it
// (it said "No more reverse-execution history" before), stepi comes back to
// the signal's instruction, and the next stepi reports the signal again
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

static volatile sig_atomic_t fired;

static void on_alarm(int sig) {
  fired = sig;
}

int main(void) {
  signal(SIGALRM, on_alarm);
  struct itimerval t = {{0, 0}, {0, 30000}};
  setitimer(ITIMER_REAL, &t, NULL);
  while (!fired) {
  }
  printf("fired=%d\n", (int)fired);
  return 0;
}
