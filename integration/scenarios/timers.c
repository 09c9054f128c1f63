// scenario: timerfd (relative and absolute, read of the expiration count,
// timerfd_gettime), setitimer/getitimer with a SIGALRM handler, and a POSIX
// timer (timer_create with SIGEV_SIGNAL) delivering SIGUSR2.
#include "scenario.h"

#include <poll.h>
#include <signal.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <time.h>

static volatile sig_atomic_t alarms, usr2;
static void on_alarm(int sig) { (void)sig; alarms++; }
static void on_usr2(int sig, siginfo_t* si, void* ctx) {
  (void)sig;
  (void)ctx;
  if (si->si_code == SI_TIMER && si->si_value.sival_int == 77) usr2++;
}

int main(void) {
  int tfd = SYS(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
  struct itimerspec its = {.it_interval = {0, 2000000}, .it_value = {0, 5000000}};
  SYS(timerfd_settime(tfd, 0, &its, NULL));
  struct itimerspec cur;
  SYS(timerfd_gettime(tfd, &cur));
  nd("timerfd remaining %ld ns\n", cur.it_value.tv_nsec);
  printf("timerfd interval %ld ns\n", cur.it_interval.tv_nsec);
  uint64_t exp = 0;
  CHECK(SYS(read(tfd, &exp, sizeof exp)) == 8);
  printf("timerfd expired at least once: %s\n", exp >= 1 ? "yes" : "no");
  nd("expirations %llu\n", (unsigned long long)exp);
  struct pollfd pfd = {.fd = tfd, .events = POLLIN};
  CHECK(SYS(poll(&pfd, 1, 1000)) == 1);
  CHECK(SYS(read(tfd, &exp, sizeof exp)) == 8);
  nd("more expirations %llu\n", (unsigned long long)exp);
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  struct itimerspec abs = {.it_value = {now.tv_sec, now.tv_nsec + 3000000}};
  if (abs.it_value.tv_nsec >= 1000000000) {
    abs.it_value.tv_sec++;
    abs.it_value.tv_nsec -= 1000000000;
  }
  SYS(timerfd_settime(tfd, TFD_TIMER_ABSTIME, &abs, NULL));
  CHECK(SYS(read(tfd, &exp, sizeof exp)) == 8);
  printf("absolute timerfd expirations: %llu\n", (unsigned long long)exp);
  SYS(close(tfd));

  signal(SIGALRM, on_alarm);
  struct itimerval itv = {.it_interval = {0, 3000}, .it_value = {0, 3000}};
  SYS(setitimer(ITIMER_REAL, &itv, NULL));
  while (alarms < 3) pause();
  struct itimerval old;
  struct itimerval off = {0};
  SYS(setitimer(ITIMER_REAL, &off, &old));
  printf("SIGALRM from setitimer: %s\n", alarms >= 3 ? "at least 3" : "too few");
  nd("alarms %d old interval %ld us\n", (int)alarms, (long)old.it_interval.tv_usec);
  SYS(getitimer(ITIMER_REAL, &old));
  printf("timer disarmed: %s\n", old.it_value.tv_sec == 0 && old.it_value.tv_usec == 0 ? "yes" : "no");

  struct sigaction sa = {0};
  sa.sa_sigaction = on_usr2;
  sa.sa_flags = SA_SIGINFO;
  SYS(sigaction(SIGUSR2, &sa, NULL));
  struct sigevent sev = {0};
  sev.sigev_notify = SIGEV_SIGNAL;
  sev.sigev_signo = SIGUSR2;
  sev.sigev_value.sival_int = 77;
  timer_t timer;
  SYS(timer_create(CLOCK_MONOTONIC, &sev, &timer));
  // Block SIGUSR2 until sigsuspend, so that it cannot slip in between the
  // test of the flag and the wait.
  sigset_t block, waitmask;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  SYS(sigprocmask(SIG_BLOCK, &block, &waitmask));
  sigdelset(&waitmask, SIGUSR2);
  struct itimerspec pts = {.it_value = {0, 4000000}};
  SYS(timer_settime(timer, 0, &pts, NULL));
  while (!usr2) sigsuspend(&waitmask);
  SYS(sigprocmask(SIG_UNBLOCK, &block, NULL));
  printf("POSIX timer signal with value 77: %d\n", (int)usr2);
  nd("overrun %d\n", timer_getoverrun(timer));
  SYS(timer_delete(timer));
  return 0;
}
