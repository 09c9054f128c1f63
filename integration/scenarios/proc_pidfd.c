// scenario: pidfds for children: clone3 with CLONE_PIDFD, pidfd_open, poll
// on a pidfd until the child exits, pidfd_send_signal, waitid(P_PIDFD),
// and pidfd_getfd copying a descriptor out of the child.
#include "proc_util.h"

#include <linux/sched.h>
#include <poll.h>
#include <sys/syscall.h>

int main(void) {
  int go[2];
  SYS(pipe(go));
  pid_t pid = proc_fork();
  if (pid == 0) {
    close(go[1]);
    char c;
    ssize_t r = read(go[0], &c, 1);
    _exit(r == 1 ? 41 : 1);
  }
  int pfd = (int)SYS(syscall(SYS_pidfd_open, pid, 0));
  struct pollfd p = {pfd, POLLIN, 0};
  printf("poll while the child runs: %d\n", poll(&p, 1, 0));
  // The child's copy of the pipe's read end, through pidfd_getfd.
  int copy = (int)syscall(SYS_pidfd_getfd, pfd, go[0], 0);
  printf("pidfd_getfd: %s\n", copy >= 0 ? "got a descriptor" : errname(errno));
  write_full(go[1], "x", 1);
  SYS(poll(&p, 1, -1));
  printf("poll after the write: revents POLLIN %d\n", !!(p.revents & POLLIN));
  siginfo_t si;
  memset(&si, 0, sizeof si);
  SYS(waitid(P_PIDFD, (id_t)pfd, &si, WEXITED));
  printf("waitid(P_PIDFD): status %d, pid matches %d\n", si.si_status, si.si_pid == pid);
  close(pfd);

  struct clone_args args;
  memset(&args, 0, sizeof args);
  int cpfd = -1;
  args.flags = CLONE_PIDFD;
  args.pidfd = (uint64_t)(uintptr_t)&cpfd;
  args.exit_signal = SIGCHLD;
  fflush(stdout);
  long c = SYS(syscall(SYS_clone3, &args, sizeof args));
  if (c == 0) {
    for (;;) pause();
  }
  printf("CLONE_PIDFD gave a descriptor: %d\n", cpfd >= 0);
  SYS(syscall(SYS_pidfd_send_signal, cpfd, SIGTERM, NULL, 0));
  memset(&si, 0, sizeof si);
  SYS(waitid(P_PIDFD, (id_t)cpfd, &si, WEXITED));
  printf("after pidfd_send_signal: code %s, SIG%s\n", si.si_code == CLD_KILLED ? "CLD_KILLED" : "?",
         sigabbrev_np(si.si_status));
  errno = 0;
  long r = syscall(SYS_pidfd_send_signal, cpfd, SIGTERM, NULL, 0);
  printf("signal to a reaped child: %ld %s\n", r, errname(errno));
  return 0;
}
