// scenario: POSIX message queues: priorities, mq_getattr/mq_setattr
// (O_NONBLOCK), mq_timedreceive, EAGAIN on an empty non-blocking queue,
// mq_notify by signal when a message arrives, and mq_unlink twice.
#include "scenario.h"

#include <fcntl.h>
#include <mqueue.h>
#include <signal.h>
#include <time.h>

static volatile sig_atomic_t notified;
static void on_usr1(int sig) {
  (void)sig;
  notified++;
}

int main(void) {
  char name[64];
  snprintf(name, sizeof name, "/backstep_scenario_%d", getpid());
  struct mq_attr attr = {0, 4, 32, 0};
  mqd_t q = mq_open(name, O_CREAT | O_EXCL | O_RDWR, 0600, &attr);
  CHECK(q != (mqd_t)-1);
  signal(SIGUSR1, on_usr1);
  struct sigevent ev = {0};
  ev.sigev_notify = SIGEV_SIGNAL;
  ev.sigev_signo = SIGUSR1;
  SYS(mq_notify(q, &ev));
  SYS(mq_send(q, "low", 4, 1));
  SYS(mq_send(q, "high", 5, 9));
  SYS(mq_send(q, "middle", 7, 5));
  printf("notified: %d\n", notified);
  struct mq_attr got;
  SYS(mq_getattr(q, &got));
  printf("curmsgs %ld maxmsg %ld msgsize %ld flags %ld\n", got.mq_curmsgs, got.mq_maxmsg, got.mq_msgsize,
         got.mq_flags);
  char buf[32];
  unsigned prio = 0;
  ssize_t n = SYS(mq_receive(q, buf, sizeof buf, &prio));
  printf("received %zd '%s' priority %u\n", n, buf, prio);
  struct timespec deadline;
  clock_gettime(CLOCK_REALTIME, &deadline);
  deadline.tv_sec += 1;
  n = SYS(mq_timedreceive(q, buf, sizeof buf, &prio, &deadline));
  printf("received %zd '%s' priority %u\n", n, buf, prio);
  errno = 0;
  n = mq_receive(q, buf, 8, &prio);
  printf("buffer smaller than msgsize: %zd EMSGSIZE %d\n", n, errno == EMSGSIZE);
  struct mq_attr nonblock = {O_NONBLOCK, 0, 0, 0}, old;
  SYS(mq_setattr(q, &nonblock, &old));
  printf("old flags %ld\n", old.mq_flags);
  n = SYS(mq_receive(q, buf, sizeof buf, NULL));
  printf("received %zd '%s'\n", n, buf);
  errno = 0;
  n = mq_receive(q, buf, sizeof buf, NULL);
  printf("empty: %zd %s\n", n, errname(errno));
  SYS(mq_close(q));
  SYS(mq_unlink(name));
  errno = 0;
  int r = mq_unlink(name);
  printf("second unlink: %d %s\n", r, errname(errno));
  return 0;
}
