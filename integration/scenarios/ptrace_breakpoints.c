// scenario: a recorded program that debugs its child as gdb does, with the
// recorder playing the kernel's part and recording the debugger's changes
// to the child: it puts an int3 at a function's first instruction with
// PTRACE_POKETEXT, and at each hit reads the registers, puts the original
// byte back, moves the pc back with PTRACE_SETREGS, single-steps the
// instruction, puts the int3 back through /proc/PID/mem and continues.
// At the second hit it also changes the function's argument (POKEUSER of
// rdi) and a global of the child (PTRACE_POKEDATA), and at the third it
// writes with process_vm_writev. It also writes a debug register's address
// and a disabled DR7 and reads them back. The child prints what it computed: the
// changes must reach it in replay as they did here. Every line is compared
// with the native run's.
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile long bonus = 1000;

__attribute__((noinline)) long work(long n) {
  long sum = bonus;
  for (long i = 0; i < n; ++i) sum += i * i;
  return sum;
}

static void child_main(void) {
  if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(90);
  raise(SIGSTOP);
  long total = 0;
  for (long round = 1; round <= 4; ++round) {
    long r = work(round * 10);
    printf("child: work(%ld) = %ld\n", round * 10, r);
    total += r;
  }
  printf("child: total %ld, bonus now %ld\n", total, bonus);
  fflush(stdout);
  _exit(0);
}

static int wait_stop(pid_t child, int expected) {
  int status;
  if (waitpid(child, &status, 0) != child || !WIFSTOPPED(status)) {
    printf("unexpected status %#x\n", status);
    exit(1);
  }
  if (WSTOPSIG(status) != expected) printf("stopped with signal %d, expected %d\n", WSTOPSIG(status), expected);
  return WSTOPSIG(status);
}

int main(void) {
  fflush(stdout);
  pid_t child = fork();
  if (child == 0) child_main();
  wait_stop(child, SIGSTOP);
  uintptr_t at = (uintptr_t)&work;  // the same address in the child (a fork)
  // A debugger keeps each thread's debug registers, disabled when it
  // watches nothing (gdb does for every new thread): written and read back.
  long dr0 = offsetof(struct user, u_debugreg[0]), dr7 = offsetof(struct user, u_debugreg[7]);
  if (ptrace(PTRACE_POKEUSER, child, dr0, at) != 0 || ptrace(PTRACE_POKEUSER, child, dr7, 0) != 0) {
    perror("POKEUSER debug register");
  }
  printf("debugger: DR0 reads back %s, DR7 %ld\n",
         (uintptr_t)ptrace(PTRACE_PEEKUSER, child, dr0, 0) == at ? "the address" : "something else",
         ptrace(PTRACE_PEEKUSER, child, dr7, 0));
  long original = ptrace(PTRACE_PEEKTEXT, child, at, 0);
  long with_int3 = (original & ~0xffL) | 0xcc;
  if (ptrace(PTRACE_POKETEXT, child, at, with_int3) != 0) perror("POKETEXT");
  char mem_path[64];
  snprintf(mem_path, sizeof mem_path, "/proc/%d/mem", child);
  int mem = open(mem_path, O_RDWR);
  if (mem < 0) perror("open mem");
  ptrace(PTRACE_CONT, child, 0, 0);
  int hits = 0;
  for (;;) {
    int status;
    if (waitpid(child, &status, 0) != child) break;
    if (WIFEXITED(status)) {
      printf("debugger: child exited %d after %d hits\n", WEXITSTATUS(status), hits);
      break;
    }
    if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
      printf("debugger: unexpected stop %#x\n", status);
      ptrace(PTRACE_CONT, child, 0, WSTOPSIG(status));
      continue;
    }
    ++hits;
    struct user_regs_struct regs;
    ptrace(PTRACE_GETREGS, child, 0, &regs);
    printf("debugger: hit %d at work+%ld, n = %lld\n", hits, (long)(regs.rip - at), regs.rdi);
    if (hits == 2) {
      // Change the argument and the global the function reads.
      if (ptrace(PTRACE_POKEUSER, child, offsetof(struct user_regs_struct, rdi), 5) != 0) perror("POKEUSER");
      if (ptrace(PTRACE_POKEDATA, child, (uintptr_t)&bonus, 7) != 0) perror("POKEDATA");
      ptrace(PTRACE_GETREGS, child, 0, &regs);
    }
    if (hits == 3) {
      long value = 300;
      struct iovec local = {&value, sizeof value}, remote = {(void*)&bonus, sizeof bonus};
      if (process_vm_writev(child, &local, 1, &remote, 1, 0) != sizeof value) perror("process_vm_writev");
    }
    // Step over the breakpoint: the original instruction, then the int3 back.
    ptrace(PTRACE_POKETEXT, child, at, original);
    regs.rip = at;
    if (ptrace(PTRACE_SETREGS, child, 0, &regs) != 0) perror("SETREGS");
    ptrace(PTRACE_SINGLESTEP, child, 0, 0);
    wait_stop(child, SIGTRAP);
    unsigned char int3 = 0xcc;
    if (pwrite(mem, &int3, 1, (off_t)at) != 1) perror("pwrite mem");
    if (hits == 4) ptrace(PTRACE_POKETEXT, child, at, original);  // the last: no more hits
    ptrace(PTRACE_CONT, child, 0, 0);
  }
  return 0;
}
