// scenario: the program installs its own seccomp filter: getppid answers
// EPERM, getuid raises SIGSYS (whose handler makes it return 4242), the
// unknown number 1008 answers EACCES and 1009 traps, every other call is
// allowed. The filter works under the recorder as natively; replay does not
// install it (it performs no system calls) and reproduces the recorded
// results. Also the query operations GET_ACTION_AVAIL and GET_NOTIF_SIZES.
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
  unsigned action = SECCOMP_RET_ERRNO;
  long r = syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action);
  printf("ERRNO action available: %ld\n", r);
  struct seccomp_notif_sizes sizes;
  memset(&sizes, 0, sizeof sizes);
  r = syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes);
  printf("notif sizes: %ld %u %u %u\n", r, sizes.seccomp_notif, sizes.seccomp_notif_resp, sizes.seccomp_data);

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigsys;
  sa.sa_flags = SA_SIGINFO;
  SYS(sigaction(SIGSYS, &sa, NULL));

  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getuid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1008, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1009, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof code / sizeof code[0], code};
  SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
  r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
  printf("install filter: %ld\n", r);

  errno = 0;
  r = syscall(SYS_getppid);
  printf("getppid: %ld %s\n", r, errname(errno));
  r = syscall(SYS_getuid);
  printf("getuid: %ld, SIGSYS for call %d\n", r, sigsys_syscall);
  // Numbers no kernel knows: the filter answers before the kernel's ENOSYS.
  errno = 0;
  r = syscall(1008);
  printf("syscall(1008): %ld %s\n", r, errname(errno));
  r = syscall(1009);
  printf("syscall(1009): %ld, SIGSYS for call %d\n", r, sigsys_syscall);
  errno = 0;
  r = syscall(1010);
  printf("syscall(1010): %ld %s\n", r, errname(errno));
  printf("getpid still works: %s\n", syscall(SYS_getpid) == getpid() ? "yes" : "no");
  return 0;
}
