// scenario: ppoll, pselect6, select, epoll_pwait and epoll_pwait2 without a
// signal mask, through syscall buffering: a ping-pong over pipes where each
// side waits in one of them before it reads (the wait may block: the
// desched event), then calls that find their descriptors ready or time out
// at once, each writing its fd_sets, revents or events, and the time left
// that select and ppoll write back (on ~ lines: it varies, but replay must
// print what recording did), also when select fails with EBADF. With a
// signal mask the calls are traced, and a signal interrupts a ppoll that
// waits with one.
// requires: threads
// expect-buffered: 1500
#define _GNU_SOURCE
#include "thread_util.h"

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>

#define ROUNDS 200

static int ping[2], pong[2];
static int epfd;

// Waits for ping[0] in turn with each call, reads a byte and answers.
static void* echo(void* arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    int ready;
    switch (i % 5) {
      case 0: {
        struct pollfd p = {.fd = ping[0], .events = POLLIN};
        ready = SYS(ppoll(&p, 1, NULL, NULL));
        CHECK(p.revents == POLLIN);
        break;
      }
      case 1: {
        fd_set r;
        FD_ZERO(&r);
        FD_SET(ping[0], &r);
        ready = SYS(pselect(ping[0] + 1, &r, NULL, NULL, NULL, NULL));
        CHECK(FD_ISSET(ping[0], &r));
        break;
      }
      case 2: {
        fd_set r;
        FD_ZERO(&r);
        FD_SET(ping[0], &r);
        ready = SYS(select(ping[0] + 1, &r, NULL, NULL, NULL));
        CHECK(FD_ISSET(ping[0], &r));
        break;
      }
      case 3: {
        struct epoll_event ev;
        ready = SYS(epoll_pwait(epfd, &ev, 1, -1, NULL));
        CHECK(ev.data.u64 == 7);
        break;
      }
      default: {
        struct epoll_event ev;
        ready = SYS(epoll_pwait2(epfd, &ev, 1, NULL, NULL));
        CHECK(ev.data.u64 == 7);
        break;
      }
    }
    CHECK(ready == 1);
    char c;
    CHECK(SYS(read(ping[0], &c, 1)) == 1);
    c = (char)(c + 1);
    CHECK(SYS(write(pong[1], &c, 1)) == 1);
  }
  return NULL;
}

static volatile sig_atomic_t handled;
static void on_usr1(int sig) {
  (void)sig;
  handled++;
}

int main(void) {
  SYS(pipe(ping));
  SYS(pipe(pong));
  epfd = SYS(epoll_create1(EPOLL_CLOEXEC));
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 7};
  SYS(epoll_ctl(epfd, EPOLL_CTL_ADD, ping[0], &ev));

  // 1. The ping-pong: the echo thread waits in each call in turn.
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, echo, NULL));
  char c = 'a', sum = 0;
  for (int i = 0; i < ROUNDS; i++) {
    CHECK(SYS(write(ping[1], &c, 1)) == 1);
    struct pollfd p = {.fd = pong[0], .events = POLLIN};
    CHECK(SYS(ppoll(&p, 1, NULL, NULL)) == 1);
    CHECK(SYS(read(pong[0], &c, 1)) == 1);
    sum = (char)(sum + c);
  }
  PCHECK(pthread_join(t, NULL));
  printf("ping-pong: %d rounds, last %d, sum %d\n", ROUNDS, c, sum);

  // 2. Ready or timing out at once, many times at the same sites: what each
  // wrote is hashed (the time left goes on ~ lines).
  SYS(write(ping[1], "xyz", 3));  // ping[0] readable; pong[1] writable; pong[0] empty
  uint64_t h = FNV_INIT;
  long left_ns = 0;
  for (int i = 0; i < 200; i++) {
    struct pollfd p[3] = {{ping[0], POLLIN, 77}, {pong[0], POLLIN, 88}, {pong[1], POLLOUT, 99}};
    struct timespec ts = {0, i % 2 ? 0 : 1000};
    int n = SYS(ppoll(p, 3, &ts, NULL));
    h = fnv1a(&n, sizeof n, h);
    h = fnv1a(p, sizeof p, h);
    left_ns += ts.tv_nsec;

    fd_set r, w, x;
    FD_ZERO(&r);
    FD_ZERO(&w);
    FD_ZERO(&x);
    FD_SET(ping[0], &r);
    FD_SET(pong[0], &r);
    FD_SET(pong[1], &w);
    FD_SET(ping[0], &x);
    struct timeval tv = {0, 100};
    n = SYS(select(pong[1] + 1, &r, &w, &x, &tv));
    h = fnv1a(&n, sizeof n, h);
    h = fnv1a(&r, sizeof r, h);
    h = fnv1a(&w, sizeof w, h);
    h = fnv1a(&x, sizeof x, h);
    left_ns += tv.tv_usec * 1000;

    FD_ZERO(&r);
    FD_SET(pong[0], &r);
    struct timespec ts2 = {0, 1000};
    n = SYS(pselect(pong[0] + 1, &r, NULL, NULL, &ts2, NULL));  // times out
    h = fnv1a(&n, sizeof n, h);
    h = fnv1a(&r, sizeof r, h);

    struct epoll_event evs[4];
    memset(evs, 0xee, sizeof evs);
    n = SYS(epoll_pwait(epfd, evs, 4, 0, NULL));
    h = fnv1a(&n, sizeof n, h);
    h = fnv1a(evs, sizeof evs, h);
    memset(evs, 0xdd, sizeof evs);
    struct timespec zero = {0, 0};
    n = SYS(epoll_pwait2(epfd, evs, 4, &zero, NULL));
    h = fnv1a(&n, sizeof n, h);
    h = fnv1a(evs, sizeof evs, h);
  }
  printf("ready or timed out: hash %016llx\n", (unsigned long long)h);
  nd("time left summed: %ld ns\n", left_ns);

  // 3. select fails (a closed descriptor) and still writes the time left.
  int gone = SYS(dup(ping[0]));
  SYS(close(gone));
  for (int i = 0; i < 20; i++) {
    fd_set r;
    FD_ZERO(&r);
    FD_SET(gone, &r);
    struct timeval tv = {5, 0};
    errno = 0;
    int n = select(gone + 1, &r, NULL, NULL, &tv);
    if (i == 0) printf("select on a closed descriptor: %d %s\n", n, errname(errno));
    if (i == 0) nd("time left: %ld.%06ld\n", (long)tv.tv_sec, (long)tv.tv_usec);
  }

  // 4. With a signal mask: traced. A signal interrupts a ppoll that waits
  // with its signal unblocked by that mask.
  sigset_t block, unblock;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  SYS(sigprocmask(SIG_BLOCK, &block, NULL));
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGUSR1, &sa, NULL));
  SYS(kill(getpid(), SIGUSR1));  // pending while blocked
  sigemptyset(&unblock);
  struct pollfd p = {.fd = pong[0], .events = POLLIN};
  errno = 0;
  int n = ppoll(&p, 1, NULL, &unblock);
  printf("ppoll with a mask: %d %s, handler ran %d time(s)\n", n, errname(errno), (int)handled);
  fd_set r;
  FD_ZERO(&r);
  FD_SET(ping[0], &r);
  n = SYS(pselect(ping[0] + 1, &r, NULL, NULL, NULL, &unblock));
  printf("pselect with a mask: %d, readable %d\n", n, FD_ISSET(ping[0], &r) != 0);
  SYS(close(epfd));
  return 0;
}
