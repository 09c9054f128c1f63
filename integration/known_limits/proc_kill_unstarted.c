// scenario: SIGKILL to a child that has not run yet: the parent forks and
// kills the child at once, then reaps it (WTERMSIG 9); 20 times, and as
// waitid.c does it (setpgid first), which makes the recorder keep the
// parent running after the fork.
//
// Known limit: the new process sits in a ptrace stop until the recorder's
// scheduler gives it its first turn (record_threads.cc, schedule()). A
// SIGKILL ends a task even in a ptrace stop, so the scheduler's
// `task.resume(ResumeHow::Syscall)` then fails with ESRCH (Task::resume
// throws TaskGone) and the recording stops: "ptrace(SYSCALL) on task N
// failed: No such process". The same happens to any task of the tree that
// is held stopped (waiting for its turn, or with a finished call not yet
// collected) when another process kills it. The scheduler would have to
// take ESRCH as "gone", wait for the task's exit status and end it as
// on_task_gone() does.
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
