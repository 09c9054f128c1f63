// scenario: select and pselect on pipes: readiness, a zero timeout, a real
// timeout (select writes the time left back into the timeval), pselect with
// a signal mask that lets a pending SIGUSR1 interrupt it.
#include "scenario.h"

#include <signal.h>
#include <sys/select.h>
#include <time.h>

static volatile sig_atomic_t got_usr1;
static void on_usr1(int sig) { (void)sig; got_usr1 = 1; }

int main(void) {
  int p[2], q[2];
  SYS(pipe(p));
  SYS(pipe(q));
  fd_set r, w;
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  FD_SET(q[0], &r);
  struct timeval zero = {0, 0};
  printf("nothing ready, zero timeout: %ld\n", SYS(select(q[0] + 1, &r, NULL, NULL, &zero)));
  SYS(write(q[1], "x", 1));
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  FD_SET(q[0], &r);
  FD_ZERO(&w);
  FD_SET(p[1], &w);
  struct timeval tv = {5, 0};
  long n = SYS(select(q[1] + 1, &r, &w, NULL, &tv));
  printf("ready: %ld (p read %d, q read %d, p write %d)\n", n, FD_ISSET(p[0], &r),
         FD_ISSET(q[0], &r), FD_ISSET(p[1], &w));
  nd("time left %ld.%06ld\n", (long)tv.tv_sec, (long)tv.tv_usec);
  printf("time left below 5s: %s\n", tv.tv_sec < 5 || tv.tv_usec == 0 ? "yes" : "no");

  FD_ZERO(&r);
  FD_SET(p[0], &r);
  struct timeval to = {0, 15000};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  printf("timeout: %ld\n", SYS(select(p[0] + 1, &r, NULL, NULL, &to)));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
  printf("waited >= 15 ms: %s, timeval zeroed: %s\n", ms >= 15 ? "yes" : "no",
         to.tv_sec == 0 && to.tv_usec == 0 ? "yes" : "no");
  nd("waited %ld ms\n", ms);

  struct timespec pts = {0, 1000000};
  FD_ZERO(&r);
  FD_SET(q[0], &r);
  printf("pselect ready: %ld\n", SYS(pselect(q[0] + 1, &r, NULL, NULL, &pts, NULL)));

  // SIGUSR1 is blocked and pending; pselect's mask unblocks it.
  signal(SIGUSR1, on_usr1);
  sigset_t block, during;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  SYS(sigprocmask(SIG_BLOCK, &block, NULL));
  raise(SIGUSR1);
  printf("handler ran while blocked: %d\n", (int)got_usr1);
  sigemptyset(&during);
  FD_ZERO(&r);
  FD_SET(p[0], &r);
  struct timespec long_wait = {10, 0};
  errno = 0;
  int rc = pselect(p[0] + 1, &r, NULL, NULL, &long_wait, &during);
  printf("pselect with the signal unblocked: %d %s, handler ran: %d\n", rc, errname(errno),
         (int)got_usr1);
  sigset_t now;
  SYS(sigprocmask(SIG_BLOCK, NULL, &now));
  printf("mask restored after pselect: %d\n", sigismember(&now, SIGUSR1));
  errno = 0;
  CHECK(select(-1, NULL, NULL, NULL, &zero) == -1);
  printf("select(-1): %s\n", errname(errno));
  return 0;
}
