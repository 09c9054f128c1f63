// scenario: a thread that unshares its descriptor table (unshare
// CLONE_FILES) and puts stdout at a number that is /dev/null in the rest of
// the process: its writes there are output, main's are not. The recorder
// must not take what one table says for the other.
// requires: threads
#include "thread_util.h"

static int quiet;

static void* worker(void* arg) {
  (void)arg;
  SYS(unshare(CLONE_FILES));
  SYS(dup2(1, quiet));
  const char* s = "stdout from a thread with a table of its own\n";
  CHECK(write(quiet, s, strlen(s)) == (ssize_t)strlen(s));
  return NULL;
}

int main(void) {
  quiet = SYS(open("/dev/null", O_WRONLY));
  const char* s = "main to /dev/null, not echoed\n";
  CHECK(write(quiet, s, strlen(s)) == (ssize_t)strlen(s));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, worker, NULL));
  PCHECK(pthread_join(t, NULL));
  CHECK(write(quiet, s, strlen(s)) == (ssize_t)strlen(s));
  printf("done\n");
  return 0;
}
