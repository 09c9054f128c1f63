// scenario: waitid(): WNOHANG with no child ready (si_pid 0), WNOWAIT that
// leaves the child waitable, then WEXITED that reaps it; P_ALL, P_PID and
// P_PGID; CLD_EXITED and CLD_KILLED codes; ECHILD at the end.
#include "proc_util.h"

#include <sys/syscall.h>

static const char* code_name(int code) {
  switch (code) {
    case CLD_EXITED: return "CLD_EXITED";
    case CLD_KILLED: return "CLD_KILLED";
    case CLD_DUMPED: return "CLD_DUMPED";
    case CLD_STOPPED: return "CLD_STOPPED";
    case CLD_CONTINUED: return "CLD_CONTINUED";
    default: return "?";
  }
}

static void show(const char* label, const siginfo_t* si, pid_t expect) {
  printf("%s: signo %s, code %s, status %d, pid matches %d, uid matches %d\n", label,
         si->si_signo ? sigabbrev_np(si->si_signo) : "0", code_name(si->si_code), si->si_status,
         si->si_pid == expect, si->si_uid == getuid());
}

int main(void) {
  int go[2];
  SYS(pipe(go));
  pid_t a = proc_fork();
  if (a == 0) {
    close(go[1]);
    char c;
    ssize_t r = read(go[0], &c, 1);
    _exit(r == 1 ? 21 : 1);
  }
  close(go[0]);
  siginfo_t si;
  memset(&si, 0xff, sizeof si);
  SYS(waitid(P_ALL, 0, &si, WEXITED | WNOHANG));
  printf("WNOHANG with the child blocked: si_pid %d\n", si.si_pid);
  write_full(go[1], "x", 1);
  close(go[1]);
  memset(&si, 0, sizeof si);
  SYS(waitid(P_PID, (id_t)a, &si, WEXITED | WNOWAIT));
  show("WNOWAIT", &si, a);
  memset(&si, 0, sizeof si);
  SYS(waitid(P_PID, (id_t)a, &si, WEXITED | WNOWAIT | WNOHANG));
  show("WNOWAIT again", &si, a);
  memset(&si, 0, sizeof si);
  SYS(waitid(P_ALL, 0, &si, WEXITED));
  show("reaped", &si, a);
  errno = 0;
  {
    long r = (long)(waitid(P_PID, (id_t)a, &si, WEXITED | WNOHANG));
    int e = errno;
    printf("P_PID after reaping: %ld %s\n", r, errname(e));
  }

  pid_t b = proc_fork();
  if (b == 0) {
    setpgid(0, 0);
    for (;;) pause();
  }
  setpgid(b, b);  // both sides, so that it is set before either goes on
  wait_child_sleeping_in(b, SYS_pause);
  SYS(kill(b, SIGKILL));
  memset(&si, 0, sizeof si);
  SYS(waitid(P_PGID, (id_t)b, &si, WEXITED));
  show("P_PGID, killed", &si, b);
  errno = 0;
  {
    long r = (long)(waitid(P_ALL, 0, &si, WEXITED | WNOHANG));
    int e = errno;
    printf("P_ALL with no children: %ld %s\n", r, errname(e));
  }
  return 0;
}
