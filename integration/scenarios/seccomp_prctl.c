// scenario: the program installs its own seccomp filter with
// prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER): getppid answers EPERM, getuid
// raises SIGSYS (whose handler makes it return 4242), and kill() with signal
// 0 kills the process with SIGSYS. PR_GET_SECCOMP says 0 before, 2 after.
// Replay does not install the filter; the recorded results and the recorded
// death stand in for it.
// expect-exit: 159
#include "scenario.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>

static volatile int sigsys_syscall = -1;

static void on_sigsys(int sig, siginfo_t* info, void* context) {
  (void)sig;
  sigsys_syscall = info->si_syscall;
  ucontext_t* uc = context;
  uc->uc_mcontext.gregs[REG_RAX] = 4242;
}

int main(void) {
  printf("PR_GET_SECCOMP before: %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  SYS(sigaction(SIGSYS, &sa, NULL));

  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getuid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_kill, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof code / sizeof code[0], code};
  errno = 0;
  long r = prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
  printf("without no_new_privs: %ld %s\n", r, errname(errno));
  SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
  errno = 0;
  r = prctl(PR_SET_SECCOMP, 7, &prog, 0, 0);
  printf("unknown mode: %ld %s\n", r, errname(errno));
  SYS(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0));
  printf("PR_GET_SECCOMP after: %d\n", prctl(PR_GET_SECCOMP, 0, 0, 0, 0));

  errno = 0;
  r = syscall(SYS_getppid);
  printf("getppid: %ld %s\n", r, errname(errno));
  r = syscall(SYS_getuid);
  printf("getuid: %ld, SIGSYS for call %d\n", r, sigsys_syscall);
  r = kill(getpid(), SIGCONT);
  printf("kill(self, SIGCONT): %ld\n", r);
  fflush(stdout);
  kill(getpid(), 0);  // the filter kills the process
  printf("still alive?\n");
  return 0;
}
