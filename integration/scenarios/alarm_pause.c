// scenario: alarm(1) interrupts pause() through a SIGALRM handler; then
// alarm interrupts a blocking read on an empty pipe (no SA_RESTART, EINTR),
// and alarm(0) cancels a pending alarm.
#include "scenario.h"

#include <signal.h>
#include <time.h>

static volatile sig_atomic_t alarms;
static void on_alarm(int sig) {
  (void)sig;
  alarms++;
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_alarm;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGALRM, &sa, NULL));
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  printf("alarm(1) returns %u\n", alarm(1));
  int r = pause();
  clock_gettime(CLOCK_MONOTONIC, &t1);
  printf("pause returned %d %s, alarms %d\n", r, errname(errno), (int)alarms);
  long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
  printf("waited about a second: %s\n", ms >= 900 ? "yes" : "no");
  nd("waited %ld ms\n", ms);

  int p[2];
  SYS(pipe(p));
  alarm(1);
  char c;
  errno = 0;
  ssize_t n = read(p[0], &c, 1);
  printf("read interrupted: %zd %s, alarms %d\n", n, errname(errno), (int)alarms);

  alarm(100);
  unsigned left = alarm(0);
  printf("alarm(0) cancels, seconds left about 100: %s\n", left >= 99 && left <= 100 ? "yes" : "no");
  return 0;
}
