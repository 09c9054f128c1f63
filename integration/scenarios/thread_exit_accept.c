// scenario: exit(5) from a worker while main is blocked in accept() on a
// listening unix socket and another worker spins on an atomic flag: the
// whole process exits with 5 and the atexit handler runs once.
// expect-exit: 5
// requires: threads
#include "thread_util.h"

#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/un.h>

static volatile pid_t main_tid_v;
static _Atomic int stop, spinner_started;
static int atexit_runs;

static void at_exit(void) {
  atexit_runs++;
  printf("atexit: run %d\n", atexit_runs);
}

static void* spinner(void* arg) {
  (void)arg;
  atomic_store(&spinner_started, 1);
  while (!atomic_load(&stop)) {
  }
  return NULL;
}

static void* exiter(void* arg) {
  (void)arg;
  while (!atomic_load(&spinner_started)) sched_yield();
  wait_blocked_in(main_tid_v, SYS_accept);
  printf("worker: main is in accept, the spinner spins; exit(5)\n");
  exit(5);
}

int main(void) {
  main_tid_v = thread_tid();
  CHECK(atexit(at_exit) == 0);
  int s = (int)SYS(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  // An abstract name: nothing on disk; the pid keeps parallel runs apart.
  int len = snprintf(addr.sun_path + 1, sizeof addr.sun_path - 1, "backstep-thread-accept-%d", (int)getpid());
  SYS(bind(s, (struct sockaddr*)&addr, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)));
  SYS(listen(s, 1));
  pthread_t a, b;
  PCHECK(pthread_create(&a, NULL, spinner, NULL));
  PCHECK(pthread_create(&b, NULL, exiter, NULL));
  int c = accept(s, NULL, NULL);
  printf("accept returned %d?\n", c);
  return 0;
}
