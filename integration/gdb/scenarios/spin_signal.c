// scenario: a SIGALRM arrives while main spins without system calls; gdb
// stops for the signal in the loop, in the handler, and finds the handler's
// write to the flag again with a watchpoint, backwards and forwards
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
