// scenario: a worker spins (no system calls) until a SIGUSR1 handler sets a
// flag; main directs the signal at that thread with pthread_kill once the
// worker says it is spinning.
// requires: threads
#include "thread_util.h"

#include <signal.h>
#include <stdatomic.h>

static volatile sig_atomic_t flag;
static __thread int thread_index = -1;
static volatile int handler_index = -2;
static _Atomic int spinning;

static void on_usr1(int sig) {
  (void)sig;
  handler_index = thread_index;
  flag = 1;
}

static void* spinner(void* arg) {
  (void)arg;
  thread_index = 1;
  unsigned long spins = 0;
  atomic_store(&spinning, 1);
  while (!flag) spins++;
  nd("spun %lu times\n", spins);
  return NULL;
}

int main(void) {
  thread_index = 0;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  SYS(sigaction(SIGUSR1, &sa, NULL));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, spinner, NULL));
  while (!atomic_load(&spinning)) sched_yield();
  PCHECK(pthread_kill(t, SIGUSR1));
  PCHECK(pthread_join(t, NULL));
  printf("flag set by the handler, which ran in thread %d\n", handler_index);
  CHECK(handler_index == 1);
  return 0;
}
