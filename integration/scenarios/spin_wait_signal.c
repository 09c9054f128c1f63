// scenario: loops without a single system call wait for a signal handler to
// set a flag: SIGALRM from setitimer(ITIMER_REAL), SIGPROF from
// ITIMER_PROF (CPU time), and a spin entered twice from the same place,
// first with the flag already set. The recorder must deliver each signal in
// the middle of the loop (a forced position), and replay must find that
// same moment.
#include "scenario.h"

#include <signal.h>
#include <sys/time.h>

static volatile sig_atomic_t fired;
static volatile sig_atomic_t handled;

static void on_signal(int sig) {
  fired = 1;
  handled += sig;
}

// The loop the program waits in: no system call, no counter, nothing but
// the flag (a fixpoint: one pass changes nothing).
__attribute__((noinline)) static void spin_until_fired(void) {
  while (!fired) {
  }
}

static void arm(int which, long usec) {
  struct itimerval t = {{0, 0}, {0, usec}};
  SYS(setitimer(which, &t, NULL));
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGALRM, &sa, NULL));
  SYS(sigaction(SIGPROF, &sa, NULL));

  for (int round = 0; round < 3; ++round) {
    fired = 0;
    arm(ITIMER_REAL, 30000);
    spin_until_fired();
    printf("round %d: SIGALRM caught in the loop, handled %d\n", round, (int)handled);
  }

  fired = 0;
  arm(ITIMER_PROF, 30000);
  spin_until_fired();
  printf("SIGPROF caught in the loop, handled %d\n", (int)handled);

  // The same spin twice from one call site: first it returns at once (the
  // flag is still set), then it waits.
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      fired = 0;
      arm(ITIMER_REAL, 20000);
    }
    spin_until_fired();
    printf("pass %d left the spin\n", pass);
  }
  printf("handled %d\n", (int)handled);
  return 0;
}
