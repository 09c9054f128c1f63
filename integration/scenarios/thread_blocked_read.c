// scenario: a thread blocks in read() on an empty pipe while main computes
// for a while without system calls, then writes; the reader gets exactly
// what main wrote, in two parts.
// requires: threads
#include "thread_util.h"

static int fds[2];
static volatile pid_t reader_tid;
static char got[64];
static ssize_t got_first, got_total;

static void* reader(void* arg) {
  (void)arg;
  publish_tid(&reader_tid);
  got_first = SYS(read(fds[0], got, sizeof got));
  got_total = got_first;
  while (got_total < 20) got_total += SYS(read(fds[0], got + got_total, sizeof got - (size_t)got_total));
  return NULL;
}

int main(void) {
  SYS(pipe(fds));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, reader, NULL));
  long polls = wait_blocked_in(await_tid(&reader_tid), SYS_read);
  nd("looked %ld times\n", polls);
  uint64_t h = FNV_INIT;
  for (int i = 0; i < 2000000; i++) h = fnv1a(&i, sizeof i, h);
  printf("computed %016llx while the reader was blocked\n", (unsigned long long)h);
  char msg[32];
  snprintf(msg, sizeof msg, "%016llx", (unsigned long long)h);
  SYS(write(fds[1], msg, 10));
  // The reader may or may not have returned from its first read yet; the
  // second part goes either into that read or into a later one.
  SYS(write(fds[1], msg + 10, 10));
  PCHECK(pthread_join(t, NULL));
  CHECK(got_total == 20 && memcmp(got, msg, 20) == 0);
  nd("first read got %zd bytes\n", got_first);
  printf("reader got \"%.20s\"\n", got);
  return 0;
}
