// Programs that use ptrace in ways backstep does not emulate yet, one per
// argv[1], and some it records. Each prints "before" first; under `backstep
// record` a request that is not emulated must end the recording at once
// with a message naming it (never hang). Natively (or where the call
// failed and the program went on) the rest of the mode runs.
//   traceme-stop   PTRACE_TRACEME, then raise(SIGSTOP) for the tracer (its
//                  parent, outside the recording: refused at the signal)
//   traceme-exec   PTRACE_TRACEME, then exec /bin/true (the same, at the exec)
//   child-traceme  a child does PTRACE_TRACEME and raises SIGSTOP; the parent
//                  waitpid()s for that stop and continues it: recorded
//   seccomp-events seize a child with PTRACE_O_TRACESECCOMP (its seccomp
//                  stops are not emulated)
//   cont-signal    attach a child, then PTRACE_CONT it with SIGUSR1 (which
//                  kills it): recorded
//   mem-write      pwrite into a child's memory through /proc/PID/mem:
//                  recorded for the child, and replayed
//   vm-write       process_vm_writev into a child's memory: the same
//   outside        PTRACE_ATTACH to init, a process outside the recording
//   peek           PTRACE_PEEKDATA of init, which the program does not trace:
//                  ESRCH, natively and emulated; recorded and replayed
//   set-ptracer    prctl(PR_SET_PTRACER, ANY): no ptrace call, recorded
//                  and replayed like any prctl
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static void report(const char* what, long r) {
  printf("%s: %s\n", what, r < 0 ? strerror(errno) : "ok");
  fflush(stdout);
}

// Forks a child that waits, attaches to it and takes its attach stop.
static pid_t attached_child(void) {
  pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  report("attach", ptrace(PTRACE_ATTACH, child, 0, 0));
  int status = 0;
  report("waitpid", waitpid(child, &status, __WALL));
  return child;
}

static void end_child(pid_t child) {
  int status = 0;
  kill(child, SIGKILL);
  waitpid(child, &status, __WALL);
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const char* mode = argv[1];
  printf("before\n");
  fflush(stdout);
  if (!strcmp(mode, "traceme-stop")) {
    report("traceme", ptrace(PTRACE_TRACEME, 0, 0, 0));
    raise(SIGSTOP);
  } else if (!strcmp(mode, "traceme-exec")) {
    report("traceme", ptrace(PTRACE_TRACEME, 0, 0, 0));
    execl("/bin/true", "true", (char*)0);
  } else if (!strcmp(mode, "seccomp-events")) {
    pid_t child = fork();
    if (child == 0) {
      for (;;) pause();
    }
    report("seize", ptrace(PTRACE_SEIZE, child, 0, PTRACE_O_TRACESECCOMP));
    end_child(child);
  } else if (!strcmp(mode, "mem-write") || !strcmp(mode, "vm-write")) {
    pid_t child = fork();
    if (child == 0) {
      for (;;) pause();
    }
    static long target = 1;
    long value = 2;
    long r;
    if (!strcmp(mode, "mem-write")) {
      char path[64];
      snprintf(path, sizeof(path), "/proc/%d/mem", child);
      int fd = open(path, O_RDWR);
      r = fd < 0 ? -1 : pwrite(fd, &value, sizeof(value), (off_t)(uintptr_t)&target);
    } else {
      struct iovec local = {&value, sizeof(value)}, remote = {&target, sizeof(target)};
      r = process_vm_writev(child, &local, 1, &remote, 1, 0);
    }
    report(mode, r);
    end_child(child);
  } else if (!strcmp(mode, "cont-signal")) {
    pid_t child = attached_child();
    report("cont", ptrace(PTRACE_CONT, child, 0, SIGUSR1));
    end_child(child);
  } else if (!strcmp(mode, "outside")) {
    long r = ptrace(PTRACE_ATTACH, 1, 0, 0);
    report("attach", r);
    if (r == 0) ptrace(PTRACE_DETACH, 1, 0, 0);
  } else if (!strcmp(mode, "child-traceme")) {
    pid_t child = fork();
    if (child == 0) {
      report("child traceme", ptrace(PTRACE_TRACEME, 0, 0, 0));
      raise(SIGSTOP);
      _exit(0);
    }
    int status = 0;
    report("waitpid", waitpid(child, &status, 0));
    if (WIFSTOPPED(status)) {
      ptrace(PTRACE_CONT, child, 0, 0);
      waitpid(child, &status, 0);
    }
  } else if (!strcmp(mode, "peek")) {
    errno = 0;
    long r = ptrace(PTRACE_PEEKDATA, 1, 0, 0);
    report("peek", r == -1 && errno != 0 ? -1 : 0);
  } else if (!strcmp(mode, "set-ptracer")) {
    long r = prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    printf("set-ptracer: %s\n", r == 0 || errno == EINVAL ? "done" : strerror(errno));  // EINVAL: no Yama
  } else {
    return 2;
  }
  printf("after\n");
  return 0;
}
