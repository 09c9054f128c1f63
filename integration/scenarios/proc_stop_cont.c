// scenario: job control between processes: the parent stops a child with
// SIGSTOP and continues it with SIGCONT, seeing each change through
// waitpid(WUNTRACED|WCONTINUED) and waitid(WSTOPPED/WCONTINUED); a child
// stops itself with raise(SIGSTOP) (SIGTSTP would be discarded: the
// driver's process group is orphaned); then the child is killed while stopped.
//
// Known limit: job control is not recorded. The recorder sees SIGSTOP as a
// signal-delivery stop and resumes the child without letting it stop
// (record_signals.cc, on_signal: `case SignalAction::Stop: ... the tracee
// keeps running`), so the child goes on (its read() restarts) and the
// parent's waitpid(WUNTRACED) never returns: the recording hangs. rr
// emulates the stop for the waiting parent (group stop, PTRACE_LISTEN, the
// parent's wait4 answered as stopped/continued); backstep would need the
// same, in recording and replay.
#include "proc_util.h"

int main(void) {
  int go[2];
  SYS(pipe(go));
  pid_t pid = proc_fork();
  if (pid == 0) {
    close(go[1]);
    char c;
    while (read(go[0], &c, 1) == 1) {
      if (c == 't') raise(SIGSTOP);
    }
    _exit(0);
  }
  close(go[0]);
  int status;
  SYS(kill(pid, SIGSTOP));
  CHECK(waitpid(pid, &status, WUNTRACED) == pid);
  printf("after SIGSTOP: %s\n", status_text(status));
  SYS(kill(pid, SIGCONT));
  CHECK(waitpid(pid, &status, WCONTINUED) == pid);
  printf("after SIGCONT: %s\n", status_text(status));
  write_full(go[1], "t", 1);
  siginfo_t si;
  memset(&si, 0, sizeof si);
  SYS(waitid(P_PID, (id_t)pid, &si, WSTOPPED));
  printf("waitid: code %s, signal SIG%s\n", si.si_code == CLD_STOPPED ? "CLD_STOPPED" : "?", sigabbrev_np(si.si_status));
  SYS(kill(pid, SIGCONT));
  memset(&si, 0, sizeof si);
  SYS(waitid(P_PID, (id_t)pid, &si, WCONTINUED));
  printf("waitid: code %s\n", si.si_code == CLD_CONTINUED ? "CLD_CONTINUED" : "?");
  SYS(kill(pid, SIGSTOP));
  CHECK(waitpid(pid, &status, WUNTRACED) == pid);
  printf("stopped again: %s\n", status_text(status));
  SYS(kill(pid, SIGKILL));
  printf("killed while stopped: %s\n", status_text(wait_for(pid)));
  return 0;
}
