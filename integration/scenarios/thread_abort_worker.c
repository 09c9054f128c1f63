// scenario: a worker calls abort() while main and another worker are
// blocked (join, read on a pipe): the process dies of SIGABRT (128 + 6).
// expect-exit: 134
// requires: threads
#include "thread_util.h"

#include <sys/resource.h>

static int fds[2];
static volatile pid_t reader_tid;

static void* reader(void* arg) {
  (void)arg;
  char c;
  publish_tid(&reader_tid);
  SYS(read(fds[0], &c, 1));
  printf("reader got a byte?\n");
  return NULL;
}

static void* aborter(void* arg) {
  (void)arg;
  wait_blocked_in(await_tid(&reader_tid), SYS_read);
  fprintf(stderr, "worker: abort() with a sibling blocked in read\n");
  abort();
}

int main(void) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  SYS(pipe(fds));
  pthread_t r, a;
  PCHECK(pthread_create(&r, NULL, reader, NULL));
  PCHECK(pthread_create(&a, NULL, aborter, NULL));
  pthread_join(a, NULL);
  printf("main survived?\n");
  return 0;
}
