// scenario: an exec while the process's interval timers run. Timers and
// ignored signals survive execve, so SIGALRM and SIGPROF (ignored, every
// 200 us) keep coming while the kernel loads the new program and backstep
// sets up its address space; the new program then handles them, computes
// and stops them.
#include "scenario.h"

#include <signal.h>
#include <sys/time.h>

static volatile sig_atomic_t alarms, profs;
static void on_alarm(int sig) {
  (void)sig;
  alarms++;
}
static void on_prof(int sig) {
  (void)sig;
  profs++;
}

int main(int argc, char** argv) {
  if (argc == 1) {
    signal(SIGALRM, SIG_IGN);
    signal(SIGPROF, SIG_IGN);
    struct itimerval it = {{0, 200}, {0, 200}};
    CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
    CHECK(setitimer(ITIMER_PROF, &it, NULL) == 0);
    printf("exec with both timers running\n");
    fflush(stdout);
    execl("/proc/self/exe", argv[0], "again", (char*)NULL);
    CHECK(!"execl failed");
  }
  struct itimerval left;
  CHECK(getitimer(ITIMER_REAL, &left) == 0);
  printf("after exec: the real timer still runs %d\n", left.it_interval.tv_usec == 200);
  signal(SIGALRM, on_alarm);
  signal(SIGPROF, on_prof);
  volatile unsigned long sum = 0;
  for (unsigned long i = 0; i < 60000000; i++) sum += i ^ (i >> 3);
  struct itimerval off = {{0, 0}, {0, 0}};
  CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
  CHECK(setitimer(ITIMER_PROF, &off, NULL) == 0);
  printf("sum %lu, handlers ran %d\n", (unsigned long)sum, alarms + profs > 0);
  nd("alarms %d profs %d\n", (int)alarms, (int)profs);
  return 0;
}
