// scenario: loops without system calls that change something on every pass
// wait for a timer's signal: a counter in memory (the registers are the same
// on every pass), and a computation in registers. Neither is a fixpoint, so
// the recorder stores the state with the position it forces, and replay
// either finds the moment or, after too many passes, takes that state.
#include "scenario.h"

#include <signal.h>
#include <sys/time.h>

static volatile sig_atomic_t fired;
static volatile unsigned long counter;

static void on_alarm(int sig) {
  (void)sig;
  fired = 1;
}

__attribute__((noinline)) static void count_in_memory(void) {
  while (!fired) counter++;
}

__attribute__((noinline)) static unsigned long count_in_registers(void) {
  unsigned long acc = 1;
  for (unsigned long i = 1; !fired; ++i) acc = acc * 6364136223846793005ul + i;
  return acc;
}

static void arm(long usec) {
  struct itimerval t = {{0, 0}, {0, usec}};
  SYS(setitimer(ITIMER_REAL, &t, NULL));
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGALRM, &sa, NULL));

  arm(30000);
  count_in_memory();
  printf("counter loop left: %s\n", counter > 0 ? "counted" : "never ran");
  nd("counter %lu\n", (unsigned long)counter);

  fired = 0;
  arm(30000);
  unsigned long acc = count_in_registers();
  printf("register loop left\n");
  nd("acc %lx\n", acc);
  return 0;
}
