// scenario: epoll in its variants: epoll_pwait with a signal mask that lets
// a blocked signal in (EINTR), epoll_pwait2 with a timespec timeout (ready
// and timed out), edge-triggered and one-shot registrations, EPOLL_CTL_MOD
// and DEL, an eventfd, a signalfd and a timerfd as sources, and an epoll
// instance nested in another.
#include "scenario.h"

#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <time.h>

static volatile sig_atomic_t usr1;
static void on_usr1(int sig) {
  (void)sig;
  usr1++;
}

static int pwait2(int ep, struct epoll_event* out, int max, long ns) {
  struct timespec ts = {0, ns};
  return (int)syscall(SYS_epoll_pwait2, ep, out, max, &ts, NULL, 8);
}

static void show(const char* what, int n, struct epoll_event* out) {
  printf("%s: %d", what, n);
  for (int i = 0; i < n; i++) printf(" [%llu %#x]", (unsigned long long)out[i].data.u64, out[i].events);
  printf("\n");
}

int main(void) {
  int ep = SYS(epoll_create1(EPOLL_CLOEXEC));
  int ev1 = SYS(eventfd(3, EFD_NONBLOCK)), ev2 = SYS(eventfd(0, EFD_NONBLOCK));
  struct epoll_event e = {EPOLLIN | EPOLLET, {.u64 = 111}};
  SYS(epoll_ctl(ep, EPOLL_CTL_ADD, ev1, &e));
  e = (struct epoll_event){EPOLLIN | EPOLLOUT, {.u64 = 222}};
  SYS(epoll_ctl(ep, EPOLL_CTL_ADD, ev2, &e));
  struct epoll_event out[8];
  sigset_t none;
  sigemptyset(&none);
  show("epoll_pwait", SYS(epoll_pwait(ep, out, 8, 0, &none)), out);
  show("edge-triggered again", SYS(epoll_wait(ep, out, 8, 0)), out);
  show("epoll_pwait2 ready", SYS(pwait2(ep, out, 8, 1000000)), out);
  SYS(epoll_ctl(ep, EPOLL_CTL_DEL, ev2, NULL));
  show("epoll_pwait2 timed out", SYS(pwait2(ep, out, 8, 2000000)), out);
  e = (struct epoll_event){EPOLLIN | EPOLLONESHOT, {.u64 = 333}};
  SYS(epoll_ctl(ep, EPOLL_CTL_MOD, ev1, &e));
  show("one-shot", SYS(epoll_wait(ep, out, 8, 0)), out);
  show("one-shot spent", SYS(epoll_wait(ep, out, 8, 0)), out);

  signal(SIGUSR1, on_usr1);
  sigset_t blocked, old;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR1);
  SYS(sigprocmask(SIG_BLOCK, &blocked, &old));
  raise(SIGUSR1);
  errno = 0;
  int n = epoll_pwait(ep, out, 8, 1000, &none);
  printf("epoll_pwait letting SIGUSR1 in: %d %s, handled %d\n", n, errname(errno), usr1);

  sigset_t term;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  SYS(sigprocmask(SIG_BLOCK, &term, NULL));
  int sfd = SYS(signalfd(-1, &term, SFD_NONBLOCK | SFD_CLOEXEC));
  int tfd = SYS(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  int inner = SYS(epoll_create1(0));
  e = (struct epoll_event){EPOLLIN, {.u64 = 444}};
  SYS(epoll_ctl(inner, EPOLL_CTL_ADD, sfd, &e));
  e = (struct epoll_event){EPOLLIN, {.u64 = 555}};
  SYS(epoll_ctl(inner, EPOLL_CTL_ADD, tfd, &e));
  int outer = SYS(epoll_create1(0));
  e = (struct epoll_event){EPOLLIN, {.u64 = 666}};
  SYS(epoll_ctl(outer, EPOLL_CTL_ADD, inner, &e));
  raise(SIGTERM);
  show("outer sees inner", SYS(epoll_wait(outer, out, 8, 1000)), out);
  show("inner", SYS(epoll_wait(inner, out, 8, 0)), out);
  struct signalfd_siginfo si;
  CHECK(SYS(read(sfd, &si, sizeof si)) == sizeof si);
  printf("signalfd: signal %u\n", si.ssi_signo);
  struct itimerspec its = {{0, 0}, {0, 3000000}};
  SYS(timerfd_settime(tfd, 0, &its, NULL));
  show("timer fired", SYS(epoll_wait(outer, out, 8, 1000)), out);
  show("inner", SYS(epoll_wait(inner, out, 8, 0)), out);
  uint64_t expirations = 0;
  SYS(read(tfd, &expirations, sizeof expirations));
  printf("expirations: %llu\n", (unsigned long long)expirations);
  return 0;
}
