// scenario: a worker installs its own alternate signal stack (a new thread
// starts without one); the SA_ONSTACK handler of a SIGUSR1 sent to it runs on
// that stack, while the same signal sent to main (which has none) runs on
// main's normal stack.
// requires: threads
#include "thread_util.h"

#include <signal.h>

static __thread char* alt_base;
static __thread size_t alt_size;
static __thread int on_alt = -1;

static void on_usr1(int sig) {
  (void)sig;
  char here;
  stack_t cur;
  sigaltstack(NULL, &cur);
  on_alt = alt_base && &here >= alt_base && &here < alt_base + alt_size;
  // SS_ONSTACK is reported while running on the alternate stack.
  if (on_alt) CHECK(cur.ss_flags & SS_ONSTACK);
}

static int worker_on_alt = -1, worker_disabled_after = -1;

static void* worker(void* arg) {
  (void)arg;
  stack_t st, old;
  size_t size = 64 * 1024;
  alt_base = malloc(size);
  CHECK(alt_base);
  alt_size = size;
  st.ss_sp = alt_base;
  st.ss_size = size;
  st.ss_flags = 0;
  SYS(sigaltstack(&st, &old));
  CHECK(old.ss_flags & SS_DISABLE);  // a new thread starts without one
  PCHECK(pthread_kill(pthread_self(), SIGUSR1));
  worker_on_alt = on_alt;
  st.ss_flags = SS_DISABLE;
  SYS(sigaltstack(&st, NULL));
  SYS(sigaltstack(NULL, &old));
  worker_disabled_after = (old.ss_flags & SS_DISABLE) != 0;
  free(alt_base);
  return NULL;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sa.sa_flags = SA_ONSTACK;
  SYS(sigaction(SIGUSR1, &sa, NULL));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, worker, NULL));
  PCHECK(pthread_join(t, NULL));
  stack_t cur;
  SYS(sigaltstack(NULL, &cur));
  printf("main has an alternate stack: %s\n", (cur.ss_flags & SS_DISABLE) ? "no" : "yes");
  PCHECK(pthread_kill(pthread_self(), SIGUSR1));
  printf("worker's handler ran on its alternate stack: %d\n", worker_on_alt);
  printf("worker's stack disabled afterwards: %d\n", worker_disabled_after);
  printf("main's handler ran on an alternate stack: %d\n", on_alt);
  CHECK(worker_on_alt == 1 && on_alt == 0);
  return 0;
}
