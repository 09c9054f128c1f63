// scenario: a child calls abort() with unflushed stdio output (lost, as
// natively) after writing a line with write(2); the parent reports
// SIGABRT. A second child aborts with SIGABRT blocked and a handler set
// (glibc unblocks and resets it). Then the parent itself aborts.
// expect-exit: 134
#include "proc_util.h"

#include <sys/resource.h>

static void handler(int sig) { child_say("handler saw SIG%s\n", sigabbrev_np(sig)); }

int main(void) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  pid_t pid = proc_fork();
  if (pid == 0) {
    child_say("child: about to abort\n");
    printf("child: lost, never flushed");
    abort();
  }
  int status = wait_for(pid);
  printf("child 1: %s, WTERMSIG is SIGABRT: %d\n", status_text(status),
         WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
  pid = proc_fork();
  if (pid == 0) {
    signal(SIGABRT, handler);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGABRT);
    sigprocmask(SIG_BLOCK, &set, NULL);
    abort();
  }
  printf("child 2: %s\n", status_text(wait_for(pid)));
  printf("parent aborts too\n");
  fflush(stdout);
  abort();
}
