// Helpers for the multi-threaded scenarios (thread_*.c, thread_*.cc).
//
// Output from several threads is made deterministic by printing from one
// thread after the others are joined, or by handing a turn around; thread ids
// and addresses go on "~" lines only.
//
// wait_blocked_in() waits until another thread of this process sits in a given
// system call, read from /proc/self/task/TID/syscall (first field: the number
// of the call it is blocked in, "running" when it is not in one). It is a wait
// for an observable state, not a sleep: a scenario that needs "the worker is
// blocked in read() when main writes" can say so exactly.
#pragma once

#include "scenario.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline pid_t thread_tid(void) { return (pid_t)syscall(SYS_gettid); }

// The system call number TID is in, -1 if it is running (or runnable), -2 if
// the task does not exist.
static inline long thread_syscall_of(pid_t tid) {
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -2;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -2;
  buf[n] = 0;
  if (buf[0] < '0' || buf[0] > '9') return -1;
  return strtol(buf, NULL, 10);
}

// Waits (yielding) until TID is blocked in system call NR. Returns how many
// times it looked, which varies from run to run (print it with nd() only).
static inline long wait_blocked_in(pid_t tid, long nr) {
  long polls = 0;
  for (;;) {
    long now = thread_syscall_of(tid);
    CHECK(now != -2);
    polls++;
    if (now == nr) return polls;
    sched_yield();
  }
}

// A tid published by a thread for another one to look at.
static inline void publish_tid(volatile pid_t* where) {
  __atomic_store_n(where, thread_tid(), __ATOMIC_RELEASE);
}
static inline pid_t await_tid(volatile pid_t* where) {
  pid_t t;
  while ((t = __atomic_load_n(where, __ATOMIC_ACQUIRE)) == 0) sched_yield();
  return t;
}

#define PCHECK(call)                                                          \
  do {                                                                        \
    int pcheck_rc_ = (call);                                                  \
    if (pcheck_rc_ != 0) {                                                    \
      fflush(stdout);                                                         \
      fprintf(stderr, "PCHECK failed %s:%d: %s = %d (%s)\n", __FILE__,        \
              __LINE__, #call, pcheck_rc_, strerror(pcheck_rc_));             \
      exit(2);                                                                \
    }                                                                         \
  } while (0)

#ifdef __cplusplus
}
#endif
