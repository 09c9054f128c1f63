// Helpers for the scenarios whose program traces its child (ptrace_*.c):
// waiting for the child's next stop, and where it stands.
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>

// The signal of `pid`'s next stop; anything else (an exit) ends the
// program with the status printed.
static inline int wait_stop(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
    printf("unexpected status %#x\n", status);
    exit(1);
  }
  return WSTOPSIG(status);
}

// The instruction pointer of the stopped `pid`.
static inline unsigned long ip_of(pid_t pid) {
  struct user_regs_struct regs;
  ptrace(PTRACE_GETREGS, pid, 0, &regs);
  return regs.rip;
}
