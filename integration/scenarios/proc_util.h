// Helpers for the process-tree scenarios (proc_*.c).
//
// stdout is a pipe under the driver, so it is fully buffered: every fork
// must flush first, or the child inherits (and prints again) what the parent
// had not written yet. proc_fork() does that. Children report with
// child_say(), which is one write(2) of a whole line: a line from one
// process is never cut by another's.
#pragma once

#include "scenario.h"

#include <signal.h>
#include <stdarg.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sched.h>

static inline pid_t proc_fork(void) {
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  CHECK(pid != -1);
  return pid;
}

// One line on stdout in one write(2), without stdio (safe after fork in a
// multi-threaded process, and in a vfork child).
static inline __attribute__((format(printf, 1, 2))) void child_say(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (n > (int)sizeof buf - 1) n = sizeof buf - 1;
  ssize_t w = write(1, buf, (size_t)n);
  (void)w;
}

// A wait status in words: "exit N", "signal NAME", "signal NAME (core)",
// "stopped NAME", "continued".
static inline const char* status_text(int status) {
  static char buf[64];
  if (WIFEXITED(status)) {
    snprintf(buf, sizeof buf, "exit %d", WEXITSTATUS(status));
  } else if (WIFSIGNALED(status)) {
    snprintf(buf, sizeof buf, "signal SIG%s%s", sigabbrev_np(WTERMSIG(status)),
             WCOREDUMP(status) ? " (core)" : "");
  } else if (WIFSTOPPED(status)) {
    snprintf(buf, sizeof buf, "stopped SIG%s", sigabbrev_np(WSTOPSIG(status)));
  } else if (WIFCONTINUED(status)) {
    snprintf(buf, sizeof buf, "continued");
  } else {
    snprintf(buf, sizeof buf, "status 0x%x", status);
  }
  return buf;
}

// Waits for pid (retrying EINTR) and returns its status.
static inline int wait_for(pid_t pid) {
  int status = 0;
  pid_t r;
  do {
    r = waitpid(pid, &status, 0);
  } while (r == -1 && errno == EINTR);
  CHECK(r == pid);
  return status;
}

// Reads exactly len bytes (a short count only at end of file); returns how
// many it got.
static inline size_t read_full(int fd, void* buf, size_t len) {
  size_t got = 0;
  while (got < len) {
    ssize_t r = read(fd, (char*)buf + got, len - got);
    if (r == -1 && errno == EINTR) continue;
    CHECK(r >= 0);
    if (r == 0) break;
    got += (size_t)r;
  }
  return got;
}

static inline void write_full(int fd, const void* buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t w = write(fd, (const char*)buf + done, len - done);
    if (w == -1 && errno == EINTR) continue;
    CHECK(w > 0);
    done += (size_t)w;
  }
}

// Waits until child `pid` sleeps in system call `nr` (/proc/PID/syscall's
// first field, /proc/PID/stat's state 'S'): blocked in the kernel, not
// running and not stopped. A wait for an observable state, not for a time.
static inline void wait_child_sleeping_in(pid_t pid, long nr) {
  char path[64], buf[512];
  for (;;) {
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE* f = fopen(path, "r");
    CHECK(f != NULL);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char* close_paren = strrchr(buf, ')');
    CHECK(close_paren != NULL);
    int sleeping = close_paren[1] == ' ' && close_paren[2] == 'S';
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
    f = fopen(path, "r");
    CHECK(f != NULL);
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    if (sleeping && buf[0] >= '0' && buf[0] <= '9' && strtol(buf, NULL, 10) == nr) return;
    sched_yield();
  }
}
