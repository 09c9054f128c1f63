// scenario: a recorded program reads the extended state of a child it
// traces while the child waits in a blocking read, with the recorder
// playing the kernel's part. The parent seizes the child, lets it on into
// a read from a pipe (made with its own `syscall` instruction, xmm5 set
// just before), waits until /proc says it is blocked there, interrupts it
// and reads its registers (the read shown interrupted) and its x87/SSE
// and XSAVE state (xmm5 as the child set it) and its signal mask
// (GETSIGMASK: SIGUSR1, which it blocked). Everything printed is the
// native run's.
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef PTRACE_GETSIGMASK
#define PTRACE_GETSIGMASK 0x420a
#endif

#define XMM5_OFFSET (160 + 16 * 5)
static const uint64_t kMark = 0x5151525253535454ull;

static long raw_read_with_xmm5(int fd, void* buf, long len) {
  long ret;
  __asm__ volatile("movq %[mark], %%xmm5\n\tsyscall"
                   : "=a"(ret)
                   : "a"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(len), [mark] "r"(kMark)
                   : "rcx", "r11", "xmm5", "memory");
  return ret;
}

// Whether `pid` is blocked in read(2): /proc/PID/syscall starts with its
// number while it waits in it.
static int blocked_in_read(pid_t pid) {
  char path[64], text[256] = {0};
  snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
  int fd = open(path, O_RDONLY);
  if (fd < 0) return 0;
  ssize_t n = read(fd, text, sizeof(text) - 1);
  close(fd);
  return n > 2 && text[0] == '0' && text[1] == ' ';
}

int main(void) {
  int go[2], data[2];
  if (pipe(go) != 0 || pipe(data) != 0) return 1;
  pid_t pid = fork();
  if (pid == 0) {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    sigprocmask(SIG_BLOCK, &usr1, NULL);
    char c;
    if (read(go[0], &c, 1) != 1) _exit(2);  // until the parent has seized it
    long n = raw_read_with_xmm5(data[0], &c, 1);
    printf("child: read %ld byte '%c'\n", n, c);
    fflush(stdout);
    _exit(0);
  }
  if (ptrace(PTRACE_SEIZE, pid, 0, 0) != 0) return 1;
  if (write(go[1], "g", 1) != 1) return 1;
  long polls = 0;
  while (!blocked_in_read(pid)) {
    if (++polls > 100000000) return 3;
    sched_yield();
  }
  printf("INTERRUPT %ld\n", ptrace(PTRACE_INTERRUPT, pid, 0, 0));
  int status = 0;
  waitpid(pid, &status, 0);
  printf("stopped %d, event stop %d\n", WIFSTOPPED(status), status >> 16 == PTRACE_EVENT_STOP);
  struct user_regs_struct regs;
  long r = ptrace(PTRACE_GETREGS, pid, 0, &regs);
  printf("GETREGS %ld: orig_rax %lld, rax %lld\n", r, (long long)regs.orig_rax, (long long)regs.rax);
  struct user_fpregs_struct fp;
  memset(&fp, 0, sizeof(fp));
  r = ptrace(PTRACE_GETFPREGS, pid, 0, &fp);
  uint64_t xmm5 = 0;
  memcpy(&xmm5, (unsigned char*)&fp + XMM5_OFFSET, sizeof(xmm5));
  printf("GETFPREGS %ld: mxcsr %#x, xmm5 is the child's %d\n", r, fp.mxcsr, xmm5 == kMark);
  static unsigned char xs[16384];
  struct iovec io = {xs, sizeof(xs)};
  r = ptrace(PTRACE_GETREGSET, pid, NT_X86_XSTATE, &io);
  memcpy(&xmm5, xs + XMM5_OFFSET, sizeof(xmm5));
  printf("GETREGSET NT_X86_XSTATE %ld: over 512 bytes %d, xmm5 is the child's %d\n", r, io.iov_len > 512,
         xmm5 == kMark);
  uint64_t mask = 0;
  r = ptrace(PTRACE_GETSIGMASK, pid, sizeof(mask), &mask);
  printf("GETSIGMASK %ld: SIGUSR1 blocked %d, SIGUSR2 blocked %d\n", r, (int)((mask >> (SIGUSR1 - 1)) & 1),
         (int)((mask >> (SIGUSR2 - 1)) & 1));
  printf("CONT %ld\n", ptrace(PTRACE_CONT, pid, 0, 0));
  if (write(data[1], "d", 1) != 1) return 1;
  waitpid(pid, &status, 0);
  printf("child exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
  return 0;
}
