// scenario: a recorded program that asks through ptrace what only the
// kernel knows of its stopped child: the signals pending for it
// (PTRACE_PEEKSIGINFO, the thread's queue and the process's), its signal
// mask (GETSIGMASK, then SETSIGMASK to let them in), its seccomp filters
// (SECCOMP_GET_FILTER, SECCOMP_GET_METADATA: the child's one filter, and
// ENOENT past it, though backstep's own filter is in the child too) and
// its rseq registration (GET_RSEQ_CONFIGURATION: none under backstep,
// which answers rseq with ENOSYS, so the address is a "~" line). After the
// parent unblocks them, the child's handler takes both queued signals, and
// its filter answers getppid with errno 7. Everything else
// printed is the native run's.
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptrace_util.h"

#ifndef PTRACE_PEEKSIGINFO
#define PTRACE_PEEKSIGINFO 0x4209
#endif
#ifndef PTRACE_GETSIGMASK
#define PTRACE_GETSIGMASK 0x420a
#define PTRACE_SETSIGMASK 0x420b
#endif
#define SECCOMP_GET_FILTER_REQUEST 0x420c
#define SECCOMP_GET_METADATA_REQUEST 0x420d
#define GET_RSEQ_CONFIGURATION_REQUEST 0x420f

struct peek_args {
  uint64_t off;
  uint32_t flags;
  int32_t nr;
};
struct filter_metadata {
  uint64_t filter_off;
  uint64_t flags;
};
struct rseq_configuration {
  uint64_t pointer;
  uint32_t size, signature, flags, pad;
};

static volatile int taken;
static volatile int values[4];

static void on_rt(int sig, siginfo_t* info, void* ctx) {
  (void)sig;
  (void)ctx;
  if (taken < 4) values[taken] = info->si_value.sival_int;
  taken++;
}

static void child(void) {
  ptrace(PTRACE_TRACEME, 0, 0, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = on_rt;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGRTMIN, &sa, NULL);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGRTMIN);
  sigprocmask(SIG_BLOCK, &block, NULL);
  // One for the process (sigqueue), one for this thread alone.
  union sigval v;
  v.sival_int = 11;
  sigqueue(getpid(), SIGRTMIN, v);
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  info.si_signo = SIGRTMIN;
  info.si_code = SI_QUEUE;
  info.si_pid = getpid();
  info.si_uid = getuid();
  info.si_value.sival_int = 22;
  syscall(SYS_rt_tgsigqueueinfo, getpid(), (pid_t)syscall(SYS_gettid), SIGRTMIN, &info);

  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 7),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
    printf("child: no seccomp filter (errno %d)\n", errno);
    fflush(stdout);
    _exit(3);
  }
  __asm__ volatile("int3");
  // The parent unblocked SIGRTMIN: both were delivered on the way back.
  printf("child: handler took %d: %d then %d\n", taken, values[0], values[1]);
  long r = syscall(SYS_getppid);
  printf("child: getppid %ld, errno %d\n", r, r < 0 ? errno : 0);
  fflush(stdout);
  _exit(0);
}

static void peek(pid_t pid, uint32_t flags, const char* which) {
  struct peek_args args = {0, flags, 4};
  siginfo_t infos[4];
  memset(infos, 0, sizeof(infos));
  long n = ptrace(PTRACE_PEEKSIGINFO, pid, &args, infos);
  printf("PEEKSIGINFO %s: %ld", which, n);
  for (long i = 0; i < n; ++i) {
    printf(", signal RTMIN+%d value %d", infos[i].si_signo - SIGRTMIN, infos[i].si_value.sival_int);
  }
  printf("\n");
}

static void blocked(pid_t pid, const char* when) {
  uint64_t mask = 0;
  long r = ptrace(PTRACE_GETSIGMASK, pid, sizeof(mask), &mask);
  printf("GETSIGMASK %s: %ld, SIGRTMIN blocked %d\n", when, r, (int)((mask >> (SIGRTMIN - 1)) & 1));
}

static void filters(pid_t pid) {
  long count = ptrace(SECCOMP_GET_FILTER_REQUEST, pid, 0, NULL);
  if (count < 0) {
    printf("SECCOMP_GET_FILTER: -1, errno %d\n", errno);  // EACCES without CAP_SYS_ADMIN
    return;
  }
  struct sock_filter code[16];
  long n = ptrace(SECCOMP_GET_FILTER_REQUEST, pid, 0, code);
  printf("SECCOMP_GET_FILTER 0: %ld instructions (%ld copied):", count, n);
  for (long i = 0; i < n && i < 16; ++i) printf(" %04x/%x", code[i].code, code[i].k);
  printf("\n");
  errno = 0;
  long next = ptrace(SECCOMP_GET_FILTER_REQUEST, pid, 1, NULL);
  printf("SECCOMP_GET_FILTER 1: %ld, ENOENT %d\n", next, errno == ENOENT);
  struct filter_metadata md = {0, 99};
  long r = ptrace(SECCOMP_GET_METADATA_REQUEST, pid, sizeof(md), &md);
  printf("SECCOMP_GET_METADATA 0: %ld, flags %llu\n", r, (unsigned long long)md.flags);
  md.filter_off = 1;
  errno = 0;
  r = ptrace(SECCOMP_GET_METADATA_REQUEST, pid, sizeof(md), &md);
  printf("SECCOMP_GET_METADATA 1: %ld, ENOENT %d\n", r, errno == ENOENT);
}

int main(void) {
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) child();
  int sig = wait_stop(pid);
  printf("child stopped with %s\n", sig == SIGTRAP ? "SIGTRAP" : "another signal");
  peek(pid, 0, "thread");
  peek(pid, 1 /* PTRACE_PEEKSIGINFO_SHARED */, "process");
  struct peek_args bad = {0, 2, 1};
  siginfo_t one;
  errno = 0;
  long refused = ptrace(PTRACE_PEEKSIGINFO, pid, &bad, &one);
  printf("PEEKSIGINFO unknown flag: %ld, EINVAL %d\n", refused, errno == EINVAL);
  blocked(pid, "before");
  uint64_t none = 0;
  printf("SETSIGMASK: %ld\n", ptrace(PTRACE_SETSIGMASK, pid, sizeof(none), &none));
  blocked(pid, "after");
  filters(pid);
  struct rseq_configuration conf;
  memset(&conf, 0xff, sizeof(conf));
  long r = ptrace(GET_RSEQ_CONFIGURATION_REQUEST, pid, sizeof(conf), &conf);
  printf("GET_RSEQ_CONFIGURATION: %ld (the struct's size)\n", r);
  printf("~rseq area %#llx, size %u\n", (unsigned long long)conf.pointer, conf.size);
  fflush(stdout);
  // Each queued signal stops the child for its tracer on its way in,
  // and is passed on.
  int status = 0, passed = 0;
  for (int give = 0;; give = WSTOPSIG(status), passed += give != 0) {
    ptrace(PTRACE_CONT, pid, 0, give);
    if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) break;
  }
  printf("signals passed on: %d\n", passed);
  printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
