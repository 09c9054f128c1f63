// timeout: 60
// scenario: periodic ITIMER_REAL timers of 2 ms down to 100 us while the
// program spins without a system call, waiting for the handler to have run
// five times. Each signal that comes while user code runs is held back for
// a forced position, and the next ones merge with it; one that comes as a
// handler returns is held back too, so that the spin runs between handlers
// (a 100 us timer fires faster than the recorder handles one signal).
// A signal the program raises itself while it is blocked still arrives the
// moment the handler that blocked it returns.
#include "scenario.h"

#include <signal.h>
#include <sys/time.h>

static volatile sig_atomic_t ticks;
static volatile sig_atomic_t inner_ran;
static volatile sig_atomic_t x;

static void on_alarm(int sig) {
  (void)sig;
  ticks++;
}

static void on_usr1(int sig) {
  (void)sig;
  inner_ran = 1;
}

// SIGUSR1 is blocked in here (sa_mask): raised now, it waits for the return.
static void on_usr2(int sig) {
  (void)sig;
  raise(SIGUSR1);
  x = inner_ran;  // still 0: blocked
}

static void arm(long usec) {
  struct itimerval t = {{0, usec}, {0, usec}};
  SYS(setitimer(ITIMER_REAL, &t, NULL));
}

__attribute__((noinline)) static void spin_for_ticks(int n) {
  while (ticks < n) {
  }
}

__attribute__((noinline)) static unsigned count_for_ticks(int n) {
  unsigned h = 1;
  while (ticks < n) h = h * 31 + 7;
  return h;
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  SYS(sigaction(SIGALRM, &sa, NULL));

  static const long periods[] = {2000, 1000, 500, 200, 100};
  for (unsigned i = 0; i < sizeof(periods) / sizeof(periods[0]); ++i) {
    ticks = 0;
    arm(periods[i]);
    spin_for_ticks(5);
    arm(0);
    printf("period %ld us: the spin saw %s\n", periods[i], ticks >= 5 ? "five ticks" : "too few");
  }

  // A loop that changes its state on every pass (no fixpoint).
  ticks = 0;
  arm(1000);
  unsigned h = count_for_ticks(5);
  arm(0);
  printf("counting loop saw %s\n", ticks >= 5 ? "five ticks" : "too few");
  printf("~ counted to %u\n", h);

  struct sigaction inner = {0};
  inner.sa_handler = on_usr1;
  sigemptyset(&inner.sa_mask);
  SYS(sigaction(SIGUSR1, &inner, NULL));
  struct sigaction outer = {0};
  outer.sa_handler = on_usr2;
  sigemptyset(&outer.sa_mask);
  sigaddset(&outer.sa_mask, SIGUSR1);
  SYS(sigaction(SIGUSR2, &outer, NULL));
  raise(SIGUSR2);
  printf("inside the outer handler the inner had run: %d; after it: %d\n", (int)x, (int)inner_ran);
  return 0;
}
