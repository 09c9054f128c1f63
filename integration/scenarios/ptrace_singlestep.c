// scenario: a recorded program that single-steps its child, with the
// recorder playing the kernel's part: the child calls PTRACE_TRACEME, and
// stops at an int3 before a computation; the parent steps it one
// instruction at a time (PTRACE_SINGLESTEP, each a SIGTRAP stop) through
// the computation and a system call, reading its instruction pointer at
// each stop, until the second int3, then lets it run to its end. The
// number of steps, where they went and what the child computed are the
// native run's.
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptrace_util.h"

static volatile long result;

// The stepped code: a loop, then a system call, between two int3s.
__attribute__((noinline)) static void compute(void) {
  __asm__ volatile("int3");
  long sum = 0;
  for (long i = 1; i <= 20; i++) sum += i * i;
  result = sum;
  long pid;
  __asm__ volatile("syscall" : "=a"(pid) : "a"((long)SYS_getpid) : "rcx", "r11", "memory");
  result += pid > 0;
  __asm__ volatile("int3");
}

int main(void) {
  pid_t pid = fork();
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, 0, 0);
    compute();
    printf("child: result %ld\n", result);
    fflush(stdout);
    _exit(0);
  }
  printf("first stop: %s\n", strsignal(wait_stop(pid)));
  unsigned long start = ip_of(pid);
  unsigned long lowest = start, highest = start;
  int steps = 0, traps = 0, syscall_seen = 0;
  for (;;) {
    unsigned char before[2];
    long word = ptrace(PTRACE_PEEKTEXT, pid, (void*)ip_of(pid), 0);
    before[0] = (unsigned char)word;
    before[1] = (unsigned char)(word >> 8);
    if (before[0] == 0x0f && before[1] == 0x05) syscall_seen = 1;
    if (before[0] == 0xcc) break;  // the second int3: the end of the stepped code
    ptrace(PTRACE_SINGLESTEP, pid, 0, 0);
    traps += wait_stop(pid) == SIGTRAP;
    steps++;
    unsigned long ip = ip_of(pid);
    if (ip < lowest) lowest = ip;
    if (ip > highest) highest = ip;
    if (steps > 100000) break;
  }
  printf("steps %d, each a SIGTRAP %d, a syscall stepped over %d\n", steps, traps == steps, syscall_seen);
  printf("stayed within compute: %d\n", highest - lowest < 512);
  long seen = ptrace(PTRACE_PEEKDATA, pid, (void*)&result, 0);
  printf("result read by the parent: %ld\n", seen);
  ptrace(PTRACE_CONT, pid, 0, 0);
  printf("int3: %s\n", strsignal(wait_stop(pid)));
  ptrace(PTRACE_CONT, pid, 0, 0);
  int status = 0;
  waitpid(pid, &status, 0);
  printf("child exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
  return 0;
}
