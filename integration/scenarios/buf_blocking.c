// scenario: buffered calls that block (the desched event): two threads
// pass a token back and forth over two pipes (each read waits for the other
// thread, which the recorder must let run), then over a socketpair with
// send/recv; a thread waits in poll() and in epoll_wait() until main writes;
// one write of 256 KiB into a pipe that another thread drains returns all
// of it (traced: a larger buffered write could be cut short);
// a reader blocked in a buffered read() is interrupted by a signal whose
// handler runs (EINTR, no SA_RESTART); a forked child feeds its parent
// through a pipe; and a burst of writes fills a pipe that is then drained
// without blocking. Results are printed by main.
// requires: threads
// expect-buffered: 1500
#include "thread_util.h"

#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#define ROUNDS 400
#define MSG 48

static int ping[2], pong[2];
static int socks[2];
static int wake[2];
static volatile pid_t waiter_tid;
static volatile sig_atomic_t handled;

static uint64_t token_step(uint64_t v) { return v * 6364136223846793005ull + 1442695040888963407ull; }

// The other end of the ping-pong: reads a message, answers with the next
// token, ROUNDS times, over the pipes and then over the socket.
static void* echo(void* arg) {
  (void)arg;
  char msg[MSG];
  for (int i = 0; i < ROUNDS; i++) {
    CHECK(SYS(read(ping[0], msg, MSG)) == MSG);
    uint64_t v;
    memcpy(&v, msg, 8);
    v = token_step(v);
    memcpy(msg, &v, 8);
    CHECK(SYS(write(pong[1], msg, MSG)) == MSG);
  }
  for (int i = 0; i < ROUNDS; i++) {
    CHECK(SYS(recv(socks[1], msg, MSG, 0)) == MSG);
    uint64_t v;
    memcpy(&v, msg, 8);
    v = token_step(v) ^ 0x5555;
    memcpy(msg, &v, 8);
    CHECK(SYS(send(socks[1], msg, MSG, 0)) == MSG);
  }
  return NULL;
}

static void* poller(void* arg) {
  int epfd = (int)(long)arg;
  publish_tid(&waiter_tid);
  struct pollfd p = {.fd = wake[0], .events = POLLIN};
  int n = SYS(poll(&p, 1, -1));
  printf("poll: %d ready, revents %#x\n", n, p.revents);
  char c;
  CHECK(SYS(read(wake[0], &c, 1)) == 1);
  printf("poll read '%c'\n", c);
  struct epoll_event ev;
  n = SYS(epoll_wait(epfd, &ev, 1, -1));
  printf("epoll_wait: %d ready, events %#x, data %llu\n", n, ev.events, (unsigned long long)ev.data.u64);
  CHECK(SYS(read(wake[0], &c, 1)) == 1);
  printf("epoll read '%c'\n", c);
  return NULL;
}

#define BIG (256 * 1024)
static long drained;
static uint64_t drained_hash = FNV_INIT;

static void* drain(void* arg) {
  (void)arg;
  char buf[1000];
  ssize_t n;
  while ((n = SYS(read(ping[0], buf, sizeof buf))) > 0) {
    drained += n;
    drained_hash = fnv1a(buf, (size_t)n, drained_hash);
  }
  return NULL;
}

static void on_usr1(int sig) {
  (void)sig;
  handled++;
}

static void* interrupted_reader(void* arg) {
  (void)arg;
  char c;
  publish_tid(&waiter_tid);
  ssize_t n = read(wake[0], &c, 1);
  printf("read in the handler's way: %zd (%s), handler ran %d time(s)\n", n, n < 0 ? strerror(errno) : "data",
         (int)handled);
  CHECK(SYS(read(wake[0], &c, 1)) == 1);
  printf("then read '%c'\n", c);
  return NULL;
}

int main(void) {
  SYS(pipe(ping));
  SYS(pipe(pong));
  SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, socks));
  SYS(pipe(wake));

  // 1. Ping-pong over pipes, then over the socket.
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, echo, NULL));
  char msg[MSG];
  memset(msg, 'm', sizeof msg);
  uint64_t v = 1, expect = 1;
  for (int i = 0; i < ROUNDS; i++) {
    memcpy(msg, &v, 8);
    CHECK(SYS(write(ping[1], msg, MSG)) == MSG);
    CHECK(SYS(read(pong[0], msg, MSG)) == MSG);
    memcpy(&v, msg, 8);
    expect = token_step(expect);
  }
  printf("pipes: %d rounds, token %016llx, %s\n", ROUNDS, (unsigned long long)v, v == expect ? "as computed" : "WRONG");
  for (int i = 0; i < ROUNDS; i++) {
    memcpy(msg, &v, 8);
    CHECK(SYS(send(socks[0], msg, MSG, 0)) == MSG);
    CHECK(SYS(recv(socks[0], msg, MSG, i % 50 == 0 ? MSG_WAITALL : 0)) == MSG);
    memcpy(&v, msg, 8);
    expect = token_step(expect) ^ 0x5555;
  }
  printf("socket: %d rounds, token %016llx, %s\n", ROUNDS, (unsigned long long)v,
         v == expect ? "as computed" : "WRONG");
  PCHECK(pthread_join(t, NULL));

  // 2. A thread waits in poll(), then in epoll_wait(), for main's writes.
  int epfd = SYS(epoll_create1(EPOLL_CLOEXEC));
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = 77};
  SYS(epoll_ctl(epfd, EPOLL_CTL_ADD, wake[0], &ev));
  waiter_tid = 0;
  PCHECK(pthread_create(&t, NULL, poller, (void*)(long)epfd));
  pid_t w = await_tid(&waiter_tid);
  nd("poller waited %ld looks", wait_blocked_in(w, SYS_poll));
  CHECK(SYS(write(wake[1], "p", 1)) == 1);
  nd("epoll waited %ld looks", wait_blocked_in(w, SYS_epoll_wait));
  CHECK(SYS(write(wake[1], "e", 1)) == 1);
  PCHECK(pthread_join(t, NULL));
  SYS(close(epfd));

  // 3. A signal interrupts a reader blocked in read(); its handler runs.
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;  // no SA_RESTART: read fails with EINTR
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGUSR1, &sa, NULL));
  waiter_tid = 0;
  PCHECK(pthread_create(&t, NULL, interrupted_reader, NULL));
  w = await_tid(&waiter_tid);
  nd("reader waited %ld looks", wait_blocked_in(w, SYS_read));
  PCHECK(pthread_kill(t, SIGUSR1));
  // The handler runs on the interrupted read's way out: once it has, the
  // next read the reader sits in is its second one.
  while (!handled) sched_yield();
  nd("reader waits again after %ld looks", wait_blocked_in(w, SYS_read));
  CHECK(SYS(write(wake[1], "s", 1)) == 1);
  PCHECK(pthread_join(t, NULL));

  // 4. A forked child feeds its parent through a pipe.
  int feed[2];
  SYS(pipe(feed));
  pid_t child = SYS(fork());
  if (child == 0) {
    SYS(close(feed[0]));
    for (int i = 0; i < 100; i++) {
      char line[32];
      int len = snprintf(line, sizeof line, "line %03d\n", i);
      CHECK(SYS(write(feed[1], line, (size_t)len)) == len);
    }
    _exit(0);
  }
  SYS(close(feed[1]));
  uint64_t h = FNV_INIT;
  long total = 0;
  ssize_t n;
  char buf[64];
  while ((n = SYS(read(feed[0], buf, sizeof buf))) > 0) {
    h = fnv1a(buf, (size_t)n, h);
    total += n;
  }
  int status;
  SYS(waitpid(child, &status, 0));
  printf("from the child: %ld bytes, hash %016llx, status %d\n", total, (unsigned long long)h, WEXITSTATUS(status));

  // 5. One write of 256 KiB into a pipe (64 KiB) that another thread drains
  // 1000 bytes at a time: natively it waits until all of it is written.
  waiter_tid = 0;
  PCHECK(pthread_create(&t, NULL, drain, NULL));
  static char big[BIG];
  for (int i = 0; i < BIG; i++) big[i] = (char)('a' + i % 26);
  ssize_t wrote = SYS(write(ping[1], big, BIG));
  SYS(close(ping[1]));
  PCHECK(pthread_join(t, NULL));
  printf("big write: %zd of %d bytes; drained %ld bytes, hash %016llx\n", wrote, BIG, drained,
         (unsigned long long)drained_hash);
  SYS(pipe(ping));

  // 6. A burst that fits in the pipe, drained without blocking.
  for (int i = 0; i < 200; i++) CHECK(SYS(write(ping[1], "0123456789abcdef", 16)) == 16);
  h = FNV_INIT;
  for (int i = 0; i < 200; i++) {
    CHECK(SYS(read(ping[0], buf, 16)) == 16);
    h = fnv1a(buf, 16, h);
  }
  printf("burst: hash %016llx\n", (unsigned long long)h);
  return 0;
}
