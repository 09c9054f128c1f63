// scenario: a recorded program that debugs its child the classic way, with
// the recorder playing the kernel's part: the child calls PTRACE_TRACEME
// and stops itself with SIGSTOP; every signal it then meets stops it for
// the parent, whose blocking waitpid is answered by that stop. The parent
// reads its registers and memory at each stop, drops one signal (CONT with
// none: the child's handler never runs), passes another on (CONT with it:
// the handler runs), changes a third into another signal, sees the SIGTRAP
// of the child's exec, and reaps it. A SIGCHLD handler counts the
// notices of the stops. Every line is compared with the native run's.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t handled[NSIG];
static volatile sig_atomic_t stop_notices;
static volatile long progress;

static void on_signal(int sig) { handled[sig]++; }

static void on_sigchld(int sig, siginfo_t* info, void* context) {
  (void)sig;
  (void)context;
  if (info->si_code == CLD_TRAPPED) stop_notices = 1;
}

static void child(void) {
  signal(SIGUSR1, on_signal);
  signal(SIGUSR2, on_signal);
  signal(SIGHUP, on_signal);
  signal(SIGWINCH, on_signal);
  if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(10);
  progress = 1;
  raise(SIGSTOP);
  progress = 2;
  raise(SIGUSR1);  // passed on: handled
  progress = 3;
  raise(SIGUSR2);  // dropped
  progress = 4;
  raise(SIGHUP);   // changed into SIGWINCH
  printf("child: handled USR1 %d, USR2 %d, HUP %d, WINCH %d\n", (int)handled[SIGUSR1], (int)handled[SIGUSR2],
         (int)handled[SIGHUP], (int)handled[SIGWINCH]);
  fflush(stdout);
  execl("/bin/true", "true", (char*)0);
  _exit(11);
}

// Waits for the child's next stop and says what it is.
static int next_stop(pid_t pid, const char* expect) {
  int status = 0;
  pid_t got = waitpid(pid, &status, 0);
  if (got != pid) {
    printf("waitpid: %s\n", strerror(errno));
    exit(1);
  }
  if (!WIFSTOPPED(status)) {
    printf("not stopped (%#x), expected %s\n", status, expect);
    exit(1);
  }
  int sig = WSTOPSIG(status);
  // After the exec, &progress names nothing of the new program's.
  long seen = sig == SIGTRAP ? 0 : ptrace(PTRACE_PEEKDATA, pid, (void*)&progress, 0);
  siginfo_t info;
  memset(&info, 0, sizeof info);
  ptrace(PTRACE_GETSIGINFO, pid, 0, &info);
  struct user_regs_struct regs;
  ptrace(PTRACE_GETREGS, pid, 0, &regs);
  printf("stop: %s (%s), progress %ld, siginfo %d, %s\n", strsignal(sig), expect, seen, info.si_signo,
         regs.rip != 0 ? "registers read" : "no registers");
  return sig;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigchld;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGCHLD, &sa, NULL);
  fflush(stdout);
  pid_t pid = fork();
  if (pid == 0) child();
  next_stop(pid, "its own SIGSTOP");
  ptrace(PTRACE_CONT, pid, 0, 0);
  int sig = next_stop(pid, "USR1, passed on");
  ptrace(PTRACE_CONT, pid, 0, sig);
  next_stop(pid, "USR2, dropped");
  ptrace(PTRACE_CONT, pid, 0, 0);
  next_stop(pid, "HUP, changed");
  ptrace(PTRACE_CONT, pid, 0, SIGWINCH);
  next_stop(pid, "the exec's trap");
  ptrace(PTRACE_CONT, pid, 0, 0);
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return 1;
  printf("child exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
  printf("stop notices by SIGCHLD: %s\n", stop_notices ? "yes" : "no");
  printf("second reap: %s\n", waitpid(pid, &status, 0) < 0 ? strerror(errno) : "reaped again");
  return 0;
}
