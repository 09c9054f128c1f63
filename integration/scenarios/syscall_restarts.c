// scenario: a timer signal interrupting blocking calls, with and without
// SA_RESTART: a pipe read restarted after the handler wrote the byte it
// waits for, and the calls the kernel never restarts (poll, epoll_wait,
// select, a timed FUTEX_WAIT, clock_nanosleep) returning EINTR; without
// SA_RESTART the read returns EINTR too.
#include "scenario.h"

#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

static int write_end;
static volatile sig_atomic_t hits;

static void on_alarm(int sig) {
  (void)sig;
  hits++;
  if (hits == 1 || hits == 6) {
    char c = (char)('A' + hits);
    CHECK(write(write_end, &c, 1) == 1);
  }
}

static void arm(void) {
  struct itimerval it = {{0, 0}, {0, 5000}};
  SYS(setitimer(ITIMER_REAL, &it, NULL));
}

static void handle(int flags) {
  struct sigaction sa = {0};
  sa.sa_handler = on_alarm;
  sa.sa_flags = flags;
  SYS(sigaction(SIGALRM, &sa, NULL));
}

int main(void) {
  int p[2];
  SYS(pipe(p));
  write_end = p[1];
  handle(SA_RESTART);
  char c = 0;
  arm();
  ssize_t n = read(p[0], &c, 1);
  printf("restarted read: %zd '%c', signals %d\n", n, c, hits);

  arm();
  struct pollfd pf = {p[0], POLLIN, 0};
  errno = 0;
  int r = poll(&pf, 1, 5000);
  printf("poll: %d %s, signals %d\n", r, errname(errno), hits);

  int ep = SYS(epoll_create1(EPOLL_CLOEXEC));
  struct epoll_event ev = {EPOLLIN, {0}};
  SYS(epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev));
  arm();
  struct epoll_event out;
  errno = 0;
  r = epoll_wait(ep, &out, 1, 5000);
  printf("epoll_wait: %d %s, signals %d\n", r, errname(errno), hits);

  arm();
  fd_set readable;
  FD_ZERO(&readable);
  FD_SET(p[0], &readable);
  struct timeval tv = {5, 0};
  errno = 0;
  r = select(p[0] + 1, &readable, NULL, NULL, &tv);
  printf("select: %d %s, signals %d, time left %d\n", r, errname(errno), hits, tv.tv_sec < 5);
  nd("select left %ld.%06ld\n", (long)tv.tv_sec, (long)tv.tv_usec);

  arm();
  int word = 0;
  struct timespec futex_timeout = {5, 0};
  errno = 0;
  long fr = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 0, &futex_timeout);
  printf("FUTEX_WAIT: %ld %s, signals %d\n", fr, errname(errno), hits);

  arm();
  c = 0;
  n = read(p[0], &c, 1);
  printf("restarted read: %zd '%c', signals %d\n", n, c, hits);

  handle(0);
  arm();
  errno = 0;
  n = read(p[0], &c, 1);
  printf("read without SA_RESTART: %zd %s, signals %d\n", n, errname(errno), hits);
  arm();
  struct timespec req = {5, 0}, rem = {0, 0};
  r = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem);
  printf("clock_nanosleep: %s, signals %d, time left %d\n", errname(r), hits, rem.tv_sec >= 4);
  return 0;
}
