// scenario: a recorded program that reads and changes its child's floating
// point, extended and signal state through ptrace, with the recorder
// playing the kernel's part. The child (PTRACE_TRACEME) stops at int3s;
// at each stop the parent writes one of its registers another way
// (PTRACE_SETFPREGS, SETREGSET of NT_PRFPREG and of NT_X86_XSTATE,
// ARCH_PRCTL), and the child reads it back right after the int3. The
// parent also reads the child's signal mask (GETSIGMASK), changes the
// siginfo of a signal before passing it on (SETSIGINFO), and asks for
// what a 64-bit tracer cannot have (GETFPXREGS: EIO) or must not give (an
// MXCSR with reserved bits: EINVAL). Everything printed is the native
// run's.
#include <asm/prctl.h>
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PTRACE_GETSIGMASK
#define PTRACE_GETSIGMASK 0x420a
#endif
#define XMM_OFFSET(i) (160 + 16 * (i))  // in the FXSAVE (legacy XSAVE) area

static volatile int handled_errno = -1;
static volatile int handled_code;

static void on_usr1(int sig, siginfo_t* info, void* ctx) {
  (void)sig;
  (void)ctx;
  handled_errno = info->si_errno;
  handled_code = info->si_code;
}

// Stops at an int3, then returns the low 64 bits of xmm register `which`
// as it is right after the stop.
#define XMM_AFTER_INT3(reg)                                                       \
  __extension__({                                                                \
    uint64_t v;                                                                  \
    __asm__ volatile("int3\n\tmovq %%" reg ", %0" : "=r"(v) : : "memory");      \
    v;                                                                           \
  })

static void child(void) {
  ptrace(PTRACE_TRACEME, 0, 0, 0);
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_sigaction = on_usr1;
  sa.sa_flags = SA_SIGINFO;
  sigaction(SIGUSR1, &sa, NULL);
  sigset_t block;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR2);
  sigprocmask(SIG_BLOCK, &block, NULL);
  uint64_t x1 = XMM_AFTER_INT3("xmm1");  // the parent's SETFPREGS
  uint64_t x3 = XMM_AFTER_INT3("xmm3");  // SETREGSET NT_PRFPREG
  uint64_t x4 = XMM_AFTER_INT3("xmm4");  // SETREGSET NT_X86_XSTATE
  __asm__ volatile("int3" ::: "memory");  // ARCH_PRCTL
  unsigned long gs = 0;
  syscall(SYS_arch_prctl, ARCH_GET_GS, &gs);
  raise(SIGUSR1);  // its siginfo changed by the parent
  printf("child: xmm1 %#llx, xmm3 %#llx, xmm4 %#llx, gs base %#lx\n", (unsigned long long)x1,
         (unsigned long long)x3, (unsigned long long)x4, gs);
  printf("child: SIGUSR1 handled with si_errno %d, si_code %d\n", handled_errno, handled_code);
  fflush(stdout);
  _exit(0);
}

static void wait_stop(pid_t pid, int want) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status) || WSTOPSIG(status) != want) {
    printf("unexpected status %#x (wanted a stop with %d)\n", status, want);
    exit(1);
  }
}

static void set_xmm(unsigned char* area, int i, uint64_t low) {
  memset(area + XMM_OFFSET(i), 0, 16);
  memcpy(area + XMM_OFFSET(i), &low, sizeof(low));
}

int main(void) {
  pid_t pid = fork();
  if (pid == 0) child();
  wait_stop(pid, SIGTRAP);

  // 1. FPREGS: read, refuse a bad MXCSR, write xmm1.
  struct user_fpregs_struct fp;
  memset(&fp, 0, sizeof(fp));
  long r = ptrace(PTRACE_GETFPREGS, pid, 0, &fp);
  printf("GETFPREGS %ld, mxcsr %#x, cwd %#x\n", r, fp.mxcsr, fp.cwd);
  struct user_fpregs_struct bad = fp;
  bad.mxcsr = 0xffffffffu;
  errno = 0;
  r = ptrace(PTRACE_SETFPREGS, pid, 0, &bad);
  printf("SETFPREGS with reserved MXCSR bits: %ld, %s\n", r, strerror(errno));
  set_xmm((unsigned char*)&fp, 1, 0x1111222233334444ull);
  printf("SETFPREGS %ld\n", ptrace(PTRACE_SETFPREGS, pid, 0, &fp));
  errno = 0;
  r = ptrace(PTRACE_GETFPXREGS, pid, 0, &fp);
  printf("GETFPXREGS: %ld, %s\n", r, strerror(errno));
  ptrace(PTRACE_CONT, pid, 0, 0);
  wait_stop(pid, SIGTRAP);

  // 2. SETREGSET NT_PRFPREG: xmm3.
  struct iovec io = {&fp, sizeof(fp)};
  r = ptrace(PTRACE_GETREGSET, pid, NT_PRFPREG, &io);
  printf("GETREGSET NT_PRFPREG %ld, %zu bytes\n", r, io.iov_len);
  set_xmm((unsigned char*)&fp, 3, 0x5555666677778888ull);
  r = ptrace(PTRACE_SETREGSET, pid, NT_PRFPREG, &io);
  printf("SETREGSET NT_PRFPREG %ld, %zu bytes\n", r, io.iov_len);
  ptrace(PTRACE_CONT, pid, 0, 0);
  wait_stop(pid, SIGTRAP);

  // 3. SETREGSET NT_X86_XSTATE: xmm4, through the whole area; a short
  // area is refused.
  static unsigned char xs[16384];
  struct iovec xio = {xs, sizeof(xs)};
  long got = ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &xio);
  printf("GETREGSET NT_X86_XSTATE %ld, over 512 bytes %d\n", got, xio.iov_len > 512);
  set_xmm(xs, 4, 0x9999aaaabbbbccccull);
  struct iovec short_io = {xs, 512};
  errno = 0;
  r = ptrace(PTRACE_SETREGSET, pid, NT_X86_XSTATE, &short_io);
  printf("SETREGSET NT_X86_XSTATE of 512 bytes: %ld, %s\n", r, strerror(errno));
  size_t had = xio.iov_len;
  r = ptrace(PTRACE_SETREGSET, pid, NT_X86_XSTATE, &xio);
  printf("SETREGSET NT_X86_XSTATE %ld, same length %d\n", r, xio.iov_len == had);
  ptrace(PTRACE_CONT, pid, 0, 0);
  wait_stop(pid, SIGTRAP);

  // 4. ARCH_PRCTL: FS read back as GETREGS has it, GS written.
  struct user_regs_struct regs;
  ptrace(PTRACE_GETREGS, pid, 0, &regs);
  unsigned long fs = 0, gs = 0;
  r = ptrace(PTRACE_ARCH_PRCTL, pid, &fs, ARCH_GET_FS);
  printf("ARCH_GET_FS %ld, same as GETREGS %d\n", r, fs == regs.fs_base && fs != 0);
  printf("ARCH_SET_GS %ld\n", ptrace(PTRACE_ARCH_PRCTL, pid, (void*)0x12345000ul, ARCH_SET_GS));
  r = ptrace(PTRACE_ARCH_PRCTL, pid, &gs, ARCH_GET_GS);
  printf("ARCH_GET_GS %ld, %#lx\n", r, gs);
  errno = 0;
  r = ptrace(PTRACE_ARCH_PRCTL, pid, (void*)0xffff800000000000ul, ARCH_SET_FS);
  printf("ARCH_SET_FS to a kernel address: %ld, %s\n", r, strerror(errno));
  errno = 0;
  r = ptrace(PTRACE_ARCH_PRCTL, pid, &gs, 0x1099);
  printf("ARCH_PRCTL code 0x1099: %ld, %s\n", r, strerror(errno));

  // 5. The signal mask: SIGUSR2 blocked, SIGUSR1 not.
  uint64_t mask = 0;
  r = ptrace(PTRACE_GETSIGMASK, pid, sizeof(mask), &mask);
  printf("GETSIGMASK %ld, SIGUSR2 blocked %d, SIGUSR1 blocked %d\n", r, (int)((mask >> (SIGUSR2 - 1)) & 1),
         (int)((mask >> (SIGUSR1 - 1)) & 1));
  errno = 0;
  r = ptrace(PTRACE_GETSIGMASK, pid, 4, &mask);
  printf("GETSIGMASK of 4 bytes: %ld, %s\n", r, strerror(errno));
  ptrace(PTRACE_CONT, pid, 0, 0);

  // 6. SIGUSR1's stop: its siginfo changed, then passed on.
  wait_stop(pid, SIGUSR1);
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  ptrace(PTRACE_GETSIGINFO, pid, 0, &info);
  printf("SIGUSR1 stop: si_code %d (SI_TKILL %d)\n", info.si_code, info.si_code == SI_TKILL);
  info.si_errno = 42;
  printf("SETSIGINFO %ld\n", ptrace(PTRACE_SETSIGINFO, pid, 0, &info));
  memset(&info, 0, sizeof(info));
  ptrace(PTRACE_GETSIGINFO, pid, 0, &info);
  printf("GETSIGINFO after it: si_errno %d\n", info.si_errno);
  ptrace(PTRACE_CONT, pid, 0, SIGUSR1);

  int status = 0;
  waitpid(pid, &status, 0);
  printf("child exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
  return 0;
}
