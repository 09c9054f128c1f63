// scenario: job control of a traced child, as strace and debuggers meet it,
// with the recorder playing the kernel's part (ptrace emulation). A seized
// child stops itself with SIGSTOP: its tracer sees the signal's stop,
// passes SIGSTOP on, sees the group-stop (PTRACE_EVENT_STOP with SIGSTOP,
// its siginfo from the child), listens (PTRACE_LISTEN: no requests, no
// stop to wait for), sends SIGCONT, sees SIGCONT's notice (PTRACE_EVENT_STOP
// with SIGTRAP) and then SIGCONT's own stop. A second seized child is
// interrupted while listening in its group-stop (it traps again with
// SIGSTOP), then resumed there: it runs though its group is stopped, as
// the kernel lets it. A child traced with PTRACE_TRACEME sees its
// group-stop as a stop with no siginfo (EINVAL); its tracer changes its
// memory there, as a debugger inserts breakpoints, and resumes it: it runs
// on with the change.
// Every line is compared with the native run's.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

// What the children exit with; a tracer may change it.
static volatile long child_code;

static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s (%s)\n", what, strerror(errno));
    exit(1);
  }
}

// The child's next stop: its signal and its ptrace event, printed.
static int next_stop(pid_t pid, const char* what) {
  int status = 0;
  check(waitpid(pid, &status, __WALL) == pid, "waitpid");
  if (!WIFSTOPPED(status)) {
    printf("%s: not a stop: %#x\n", what, status);
    exit(1);
  }
  printf("%s: stop signal %d, event %d\n", what, WSTOPSIG(status), status >> 16);
  return status;
}

static void show_siginfo(pid_t pid, const char* what) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  if (ptrace(PTRACE_GETSIGINFO, pid, 0, &si) != 0) {
    printf("%s: GETSIGINFO: %s\n", what, strerror(errno));
    return;
  }
  printf("%s: siginfo signal %d, code %#x (event %d), from the child %d\n", what, si.si_signo, si.si_code,
         si.si_code >> 8, si.si_pid == pid);
}

static void show_exit(pid_t pid, const char* what) {
  int status = 0;
  check(waitpid(pid, &status, __WALL) == pid, "waitpid for the exit");
  printf("%s: exited %d, status %d\n", what, WIFEXITED(status), WEXITSTATUS(status));
}

// A child that waits for the word to go, stops itself, says it runs again
// on `ran` (when that is open) and exits `code`.
static pid_t start_child(int go[2], int ran[2], int code, int traceme) {
  child_code = code;
  pid_t child = fork();
  if (child == 0) {
    if (traceme && ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(90);
    char c;
    if (read(go[0], &c, 1) != 1) _exit(91);
    raise(SIGSTOP);
    if (ran) write(ran[1], "r", 1);
    _exit((int)child_code);
  }
  return child;
}

// The child's stop at its own SIGSTOP, passed on by its tracer: then its
// group-stop. `who` prefixes the lines; `siginfo`: each stop's siginfo too.
static void to_group_stop(pid_t child, const char* who, int siginfo) {
  char what[64];
  snprintf(what, sizeof what, "%s: SIGSTOP", who);
  next_stop(child, what);
  if (siginfo) show_siginfo(child, what);
  check(ptrace(PTRACE_CONT, child, 0, SIGSTOP) == 0, "PTRACE_CONT with SIGSTOP");
  snprintf(what, sizeof what, "%s: group-stop", who);
  next_stop(child, what);
  if (siginfo) show_siginfo(child, what);
}

static void listened(void) {
  int go[2];
  check(pipe(go) == 0, "pipe");
  pid_t child = start_child(go, NULL, 3, 0);
  check(ptrace(PTRACE_SEIZE, child, 0, PTRACE_O_TRACESYSGOOD) == 0, "PTRACE_SEIZE");
  check(write(go[1], "g", 1) == 1, "go");
  to_group_stop(child, "seized", 1);
  struct user_regs_struct regs;
  printf("seized: registers at the group-stop: %s\n",
         ptrace(PTRACE_GETREGS, child, 0, &regs) == 0 ? "read" : strerror(errno));
  printf("seized: LISTEN: %s\n", ptrace(PTRACE_LISTEN, child, 0, 0) == 0 ? "ok" : strerror(errno));
  errno = 0;
  printf("seized: listening, GETREGS: %s\n",
         ptrace(PTRACE_GETREGS, child, 0, &regs) == 0 ? "read" : strerror(errno));
  int status = 0;
  printf("seized: listening, a wait reports %d\n", (int)waitpid(child, &status, WNOHANG | __WALL));
  check(kill(child, SIGCONT) == 0, "SIGCONT");
  next_stop(child, "seized: SIGCONT's notice");
  show_siginfo(child, "seized: SIGCONT's notice");
  printf("seized: LISTEN again: %s\n", ptrace(PTRACE_LISTEN, child, 0, 0) == 0 ? "ok" : strerror(errno));
  // Not stopped any more: the listening tracee traps at the next notice,
  // which the interrupt gives.
  check(ptrace(PTRACE_INTERRUPT, child, 0, 0) == 0, "PTRACE_INTERRUPT");
  next_stop(child, "seized: interrupted");
  check(ptrace(PTRACE_SYSCALL, child, 0, 0) == 0, "PTRACE_SYSCALL");
  next_stop(child, "seized: after the notice");
  show_siginfo(child, "seized: after the notice");
  check(ptrace(PTRACE_CONT, child, 0, SIGCONT) == 0, "PTRACE_CONT with SIGCONT");
  show_exit(child, "seized");
}

static void resumed_in_group_stop(void) {
  int go[2], ran[2];
  check(pipe(go) == 0 && pipe(ran) == 0, "pipe");
  pid_t child = start_child(go, ran, 5, 0);
  check(ptrace(PTRACE_SEIZE, child, 0, 0) == 0, "PTRACE_SEIZE");
  check(write(go[1], "g", 1) == 1, "go");
  to_group_stop(child, "run on", 0);
  check(ptrace(PTRACE_LISTEN, child, 0, 0) == 0, "PTRACE_LISTEN");
  check(ptrace(PTRACE_INTERRUPT, child, 0, 0) == 0, "PTRACE_INTERRUPT");
  next_stop(child, "run on: interrupted while listening");
  show_siginfo(child, "run on: interrupted while listening");
  // A signal given at such a stop is not delivered.
  check(ptrace(PTRACE_CONT, child, 0, SIGTERM) == 0, "PTRACE_CONT");
  char c = 0;
  printf("run on: the child ran in its group-stop: %d\n", read(ran[0], &c, 1) == 1 && c == 'r');
  show_exit(child, "run on");
}

static void traced_me(void) {
  int go[2], ran[2];
  check(pipe(go) == 0 && pipe(ran) == 0, "pipe");
  pid_t child = start_child(go, ran, 6, 1);
  check(write(go[1], "g", 1) == 1, "go");
  to_group_stop(child, "traceme", 1);
  printf("traceme: LISTEN: %s\n", ptrace(PTRACE_LISTEN, child, 0, 0) == 0 ? "ok" : strerror(errno));
  printf("traceme: POKEDATA at the group-stop: %s\n",
         ptrace(PTRACE_POKEDATA, child, (void*)&child_code, (void*)66) == 0 ? "ok" : strerror(errno));
  check(ptrace(PTRACE_CONT, child, 0, 0) == 0, "PTRACE_CONT");
  char c = 0;
  printf("traceme: the child ran in its group-stop: %d\n", read(ran[0], &c, 1) == 1 && c == 'r');
  show_exit(child, "traceme");
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  listened();
  resumed_in_group_stop();
  traced_me();
  return 0;
}
