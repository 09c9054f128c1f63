// scenario: a recorded tracer that seizes its child with PTRACE_O_TRACEFORK:
// the child's fork stops it (PTRACE_EVENT_FORK, the new pid its event
// message), and the grandchild, traced from its start, first stops with
// PTRACE_EVENT_STOP (SIGTRAP), whose siginfo names the grandchild itself
// (si_pid) and the user, as the kernel's does. Replay must print the same.
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
  int go[2];
  if (pipe(go) != 0) return 1;
  pid_t child = fork();
  if (child == 0) {
    char c;
    if (read(go[0], &c, 1) != 1) _exit(90);
    pid_t g = fork();
    if (g == 0) _exit(7);
    int st = 0;
    waitpid(g, &st, 0);
    _exit(WEXITSTATUS(st) + 1);
  }
  if (ptrace(PTRACE_SEIZE, child, 0, PTRACE_O_TRACEFORK) != 0) return 2;
  if (write(go[1], "x", 1) != 1) return 3;
  int status = 0;
  waitpid(child, &status, 0);
  unsigned long grandchild = 0;
  ptrace(PTRACE_GETEVENTMSG, child, 0, &grandchild);
  printf("child stop: event %d, sig %d\n", status >> 16, WSTOPSIG(status));
  waitpid((pid_t)grandchild, &status, __WALL);
  siginfo_t si;
  ptrace(PTRACE_GETSIGINFO, (pid_t)grandchild, 0, &si);
  printf("grandchild's first stop: event %d, sig %d; siginfo signo %d, event %d, names itself %d, uid %d\n",
         status >> 16, WSTOPSIG(status), si.si_signo, si.si_code >> 8, si.si_pid == (pid_t)grandchild,
         si.si_uid == getuid());
  ptrace(PTRACE_CONT, (pid_t)grandchild, 0, 0);
  ptrace(PTRACE_CONT, child, 0, 0);
  waitpid((pid_t)grandchild, &status, __WALL);
  printf("grandchild exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
  // The grandchild's SIGCHLD stops the child for its tracer first.
  while (waitpid(child, &status, 0) == child && WIFSTOPPED(status)) {
    printf("child stop: sig %d\n", WSTOPSIG(status));
    ptrace(PTRACE_CONT, child, 0, WSTOPSIG(status));
  }
  printf("child exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
  return 0;
}
