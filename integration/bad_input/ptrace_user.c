// Programs that use ptrace themselves, one per argv[1]. Each prints
// "before" first; under `backstep record` every ptrace call must end the
// recording at once with a message naming the request (never hang), until
// backstep emulates ptrace. Natively (or where the call failed and the
// program went on) the rest of the mode runs.
//   traceme-stop   PTRACE_TRACEME, then raise(SIGSTOP) for the tracer
//   traceme-exec   PTRACE_TRACEME, then exec /bin/true (stops for the tracer)
//   attach         fork a child, PTRACE_ATTACH it, waitpid(__WALL) its stop
//   seize          the same with PTRACE_SEIZE + PTRACE_INTERRUPT
//   child-traceme  a child does PTRACE_TRACEME and raises SIGSTOP; the parent
//                  waitpid()s for that stop (the child makes the call)
//   peek           PTRACE_PEEKDATA of init, a debugger check that fails natively
//   set-ptracer    prctl(PR_SET_PTRACER, ANY): no ptrace call, recorded
//                  and replayed like any prctl
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static void report(const char* what, long r) {
  printf("%s: %s\n", what, r < 0 ? strerror(errno) : "ok");
  fflush(stdout);
}

static void trace_a_child(int seize) {
  pid_t child = fork();
  if (child == 0) {
    for (;;) pause();
  }
  long r = seize ? ptrace(PTRACE_SEIZE, child, 0, 0) : ptrace(PTRACE_ATTACH, child, 0, 0);
  report(seize ? "seize" : "attach", r);
  int status = 0;
  if (r == 0) {
    if (seize) ptrace(PTRACE_INTERRUPT, child, 0, 0);
    report("waitpid", waitpid(child, &status, __WALL));
  }
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
  } else if (!strcmp(mode, "attach") || !strcmp(mode, "seize")) {
    trace_a_child(!strcmp(mode, "seize"));
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
