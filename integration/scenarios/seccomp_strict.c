// scenario: prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT): read, write and
// exit still work, output written after it is re-emitted by replay, and the
// first other call (getpid) kills the process with SIGKILL.
// expect-exit: 137
#include "scenario.h"

#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static void say(const char* s) { syscall(SYS_write, 1, s, strlen(s)); }

int main(void) {
  printf("PR_GET_SECCOMP before: %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
  fflush(stdout);
  SYS(prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT, 0, 0, 0));
  say("strict mode: write works\n");
  char c = 0;
  long n = syscall(SYS_read, 0, &c, 1);
  say(n == 0 ? "read at end of input: 0\n" : "read: something\n");
  syscall(SYS_getpid);  // not allowed: SIGKILL
  say("still alive?\n");
  syscall(SYS_exit, 0);
  return 0;
}
