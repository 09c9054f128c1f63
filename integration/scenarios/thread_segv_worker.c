// scenario: a worker writes through a null pointer while main is blocked in
// pthread_join: the whole process dies of SIGSEGV (128 + 11).
// expect-exit: 139
// requires: threads
#include "thread_util.h"

#include <sys/resource.h>

static void* crasher(void* arg) {
  (void)arg;
  printf("worker: about to write through a null pointer\n");
  fflush(stdout);
  volatile int* p = NULL;
  *p = 1;
  printf("worker survived?\n");
  return NULL;
}

int main(void) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  printf("main: starting the worker\n");
  fflush(stdout);
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, crasher, NULL));
  pthread_join(t, NULL);
  printf("main survived?\n");
  return 0;
}
