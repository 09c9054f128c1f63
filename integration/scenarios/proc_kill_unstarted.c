// scenario: SIGKILL to a child that has not run yet: the parent forks and
// kills the child at once, then reaps it (WTERMSIG 9); 20 times, and as
// waitid.c does it (setpgid first), which makes the recorder keep the
// parent running after the fork.
//
// The new process sits in a ptrace stop until the recorder's scheduler
// gives it its first turn; the SIGKILL ends it there, and the scheduler's
// resume then fails (ESRCH): it waits for the death and ends the process
// as killed (record_threads.cc, schedule()).
#include "proc_util.h"

int main(void) {
  for (int i = 0; i < 20; i++) {
    pid_t pid = proc_fork();
    if (pid == 0) {
      for (;;) pause();
    }
    setpgid(pid, pid);
    SYS(kill(pid, SIGKILL));
    printf("child %d: %s\n", i, status_text(wait_for(pid)));
  }
  return 0;
}
