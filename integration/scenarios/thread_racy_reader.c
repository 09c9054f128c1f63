// scenario: one thread is blocked in read() on a pipe into a buffer that a
// second thread polls without system calls; main then writes. The poller
// sees the bytes the kernel copied in (a recorder must not let the read land
// in a scratch buffer the poller cannot see, or replay must show the same).
// requires: threads
#include "thread_util.h"

#include <stdatomic.h>

#define LEN 48

static int fds[2];
static volatile char buf[LEN];
static volatile pid_t reader_tid;
static _Atomic int poller_started;
static char poller_saw[LEN + 1];

static void* reader(void* arg) {
  (void)arg;
  publish_tid(&reader_tid);
  size_t got = 0;
  while (got < LEN) got += (size_t)SYS(read(fds[0], (char*)buf + got, LEN - got));
  return NULL;
}

static void* poller(void* arg) {
  (void)arg;
  atomic_store(&poller_started, 1);
  while (buf[LEN - 1] == 0) {
  }
  for (int i = 0; i < LEN; i++) poller_saw[i] = buf[i];
  return NULL;
}

int main(void) {
  SYS(pipe(fds));
  pthread_t r, p;
  PCHECK(pthread_create(&r, NULL, reader, NULL));
  PCHECK(pthread_create(&p, NULL, poller, NULL));
  wait_blocked_in(await_tid(&reader_tid), SYS_read);
  while (!atomic_load(&poller_started)) sched_yield();
  char msg[LEN + 1];
  for (int i = 0; i < LEN; i++) msg[i] = (char)('a' + i % 26);
  msg[LEN] = 0;
  SYS(write(fds[1], msg, LEN));
  PCHECK(pthread_join(r, NULL));
  PCHECK(pthread_join(p, NULL));
  CHECK(memcmp(poller_saw, msg, LEN) == 0);
  printf("poller saw what read() wrote: %s\n", poller_saw);
  return 0;
}
