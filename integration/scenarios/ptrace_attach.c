// scenario: a recorded program that traces its own children, which the
// recorder emulates (backstep traces them all, so the kernel's ptrace is
// not theirs to use). The parent attaches to a child blocked in read(2)
// (PTRACE_ATTACH: its SIGSTOP stop, siginfo, registers through GETREGS,
// PEEKUSER and GETREGSET, memory through PEEKDATA, DETACH) and to a child
// spinning in user code (PTRACE_SEIZE and INTERRUPT: an event stop seen by
// waitid, the x87/SSE and XSAVE state, no progress while stopped, CONT and
// PTRACE_KILL). The requests the kernel refuses are refused alike. Every
// line is compared with the native run's.
#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned long marker;

static void say(const char* what, long r) {
  printf("%s: %s\n", what, r < 0 ? strerror(errno) : "ok");
  fflush(stdout);
}

static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s\n", what);
    exit(1);
  }
}

// A child that sets `marker`, says so on `ready`, and waits in read(2):
// returned once it waits there.
static pid_t start_reader(int ready[2], int go[2]) {
  pid_t child = fork();
  if (child == 0) {
    marker = 0x1234567890abcdefUL;
    char c = 'r';
    write(ready[1], &c, 1);
    read(go[0], &c, 1);
    _exit(7);
  }
  char c;
  read(ready[0], &c, 1);
  // Until it waits in read(2) (system call 0 in /proc/PID/syscall), a
  // stop would find it elsewhere.
  char path[64], line[32] = "";
  snprintf(path, sizeof path, "/proc/%d/syscall", child);
  while (strncmp(line, "0 ", 2) != 0) {
    FILE* f = fopen(path, "r");
    if (!f || !fgets(line, sizeof line, f)) line[0] = 0;
    if (f) fclose(f);
    if (strncmp(line, "0 ", 2) != 0) sched_yield();
  }
  return child;
}

static void trace_reader(void) {
  int ready[2], go[2];
  pipe(ready);
  pipe(go);
  pid_t child = start_reader(ready, go);
  say("attach", ptrace(PTRACE_ATTACH, child, 0, 0));
  int status = 0;
  check(waitpid(child, &status, 0) == child, "waitpid returns the tracee");
  printf("attach stop: stopped %d, signal %d\n", WIFSTOPPED(status), WSTOPSIG(status));
  siginfo_t info;
  say("getsiginfo", ptrace(PTRACE_GETSIGINFO, child, 0, &info));
  printf("siginfo: signal %d\n", info.si_signo);
  errno = 0;
  long word = ptrace(PTRACE_PEEKDATA, child, (void*)&marker, 0);
  printf("peekdata: %lx (%s)\n", (unsigned long)word, errno ? strerror(errno) : "ok");
  struct user_regs_struct regs;
  say("getregs", ptrace(PTRACE_GETREGS, child, 0, &regs));
  printf("in read: call %lld, result %lld\n", (long long)regs.orig_rax, (long long)regs.rax);
  long orig = ptrace(PTRACE_PEEKUSER, child, (void*)offsetof(struct user, regs.orig_rax), 0);
  printf("peekuser orig_rax: %ld\n", orig);
  struct user_regs_struct again;
  struct iovec io = {&again, sizeof again};
  say("getregset NT_PRSTATUS", ptrace(PTRACE_GETREGSET, child, (void*)NT_PRSTATUS, &io));
  printf("regset: %zu bytes, same ip and sp %d\n", io.iov_len, again.rip == regs.rip && again.rsp == regs.rsp);
  printf("second wait, WNOHANG: %d\n", waitpid(child, &status, WNOHANG));
  say("interrupt without seize", ptrace(PTRACE_INTERRUPT, child, 0, 0));
  say("detach", ptrace(PTRACE_DETACH, child, 0, 0));
  say("peek after detach", ptrace(PTRACE_PEEKDATA, child, (void*)&marker, 0));
  char c = 'g';
  write(go[1], &c, 1);
  check(waitpid(child, &status, 0) == child, "waitpid returns the child");
  printf("reader exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
}

static void trace_spinner(void) {
  volatile unsigned long* counter =
      mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  pid_t child = fork();
  if (child == 0) {
    for (;;) ++*counter;
  }
  while (*counter < 1000) sched_yield();
  say("seize", ptrace(PTRACE_SEIZE, child, 0, 0));
  say("interrupt", ptrace(PTRACE_INTERRUPT, child, 0, 0));
  siginfo_t si;
  memset(&si, 0, sizeof si);
  say("waitid", waitid(P_PID, child, &si, WSTOPPED));
  printf("waitid: trapped %d, status %#x\n", si.si_code == CLD_TRAPPED, si.si_status);
  struct user_fpregs_struct fp;
  say("getfpregs", ptrace(PTRACE_GETFPREGS, child, 0, &fp));
  printf("mxcsr %#x\n", fp.mxcsr);
  static unsigned char area[8192];
  struct iovec io = {area, sizeof area};
  say("getregset NT_X86_XSTATE", ptrace(PTRACE_GETREGSET, child, (void*)NT_X86_XSTATE, &io));
  printf("xstate beyond the legacy area %d\n", io.iov_len > 512);
  unsigned long before = *counter;
  for (int i = 0; i < 50; i++) sched_yield();
  printf("no progress while stopped %d\n", *counter == before);
  say("cont", ptrace(PTRACE_CONT, child, 0, 0));
  while (*counter == before) sched_yield();
  printf("progress after cont 1\n");
  say("kill", ptrace(PTRACE_KILL, child, 0, 0));
  int status = 0;
  check(waitpid(child, &status, 0) == child, "waitpid returns the killed child");
  printf("spinner killed %d by %d\n", WIFSIGNALED(status), WTERMSIG(status));
}

int main(void) {
  trace_reader();
  trace_spinner();
  say("attach to itself", ptrace(PTRACE_ATTACH, getpid(), 0, 0));
  say("attach to no one", ptrace(PTRACE_ATTACH, 0x3ffffff0, 0, 0));
  say("peek at no tracee", ptrace(PTRACE_PEEKDATA, getppid(), 0, 0));
  return 0;
}
