// scenario: a recorded program that gives its child signals while it
// single-steps it, with the recorder playing the kernel's part. The child
// (PTRACE_TRACEME) stops at an int3 before a loop; the parent steps it,
// then:
//  - steps with SIGUSR1 (a handler): the child stops at the handler's
//    first instruction, its frame written, as the kernel stops it;
//  - steps twice inside the handler, then continues with SIGUSR2 (another
//    handler) from that step's stop: both handlers run, and the child runs
//    on to its second int3;
//  - steps with SIGURG (ignored by default): the signal is dropped and the
//    step runs one instruction;
//  - continues to the end.
// Where each stop is, the handlers' counts and the child's result are the
// native run's.
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ptrace_util.h"

static volatile int usr1_runs, usr2_runs;
static volatile long result;

static void on_usr1(int sig) {
  (void)sig;
  usr1_runs++;
}

static void on_usr2(int sig) {
  (void)sig;
  usr2_runs++;
}

__attribute__((noinline)) static void compute(void) {
  __asm__ volatile("int3");
  long sum = 0;
  for (long i = 1; i <= 30; i++) sum += i * 3;
  result = sum;
  __asm__ volatile("int3\n\tnop\n\tnop");
}

static int step(pid_t pid, int sig) {
  ptrace(PTRACE_SINGLESTEP, pid, 0, sig);
  return wait_stop(pid);
}

int main(void) {
  pid_t pid = fork();
  if (pid == 0) {
    signal(SIGUSR1, on_usr1);
    signal(SIGUSR2, on_usr2);
    ptrace(PTRACE_TRACEME, 0, 0, 0);
    compute();
    printf("child: result %ld, SIGUSR1 handled %d, SIGUSR2 handled %d\n", result, usr1_runs, usr2_runs);
    fflush(stdout);
    _exit(0);
  }
  printf("first stop: %s\n", strsignal(wait_stop(pid)));
  for (int i = 0; i < 5; i++) step(pid, 0);
  unsigned long in_loop = ip_of(pid);

  int sig = step(pid, SIGUSR1);
  unsigned long at = ip_of(pid);
  printf("step with SIGUSR1: %s, at the handler %d\n", strsignal(sig), at == (unsigned long)on_usr1);
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  ptrace(PTRACE_GETSIGINFO, pid, 0, &info);
  printf("its siginfo: signal %d, code %d\n", info.si_signo, info.si_code);
  long handled = ptrace(PTRACE_PEEKDATA, pid, (void*)&usr1_runs, 0);
  printf("SIGUSR1 handled before its first instruction: %ld\n", handled & 0xffffffff);
  step(pid, 0);
  step(pid, 0);
  unsigned long inside = ip_of(pid);
  printf("two steps on, inside the handler %d\n", inside > at && inside - at < 64);

  ptrace(PTRACE_CONT, pid, 0, SIGUSR2);
  printf("continue with SIGUSR2 from a step's stop: %s\n", strsignal(wait_stop(pid)));
  unsigned long second = ip_of(pid);
  printf("at the second int3, after the loop %d\n", second > in_loop);

  sig = step(pid, SIGURG);
  unsigned long after = ip_of(pid);
  printf("step with SIGURG (ignored): %s, one instruction on %d\n", strsignal(sig), after == second + 1);

  ptrace(PTRACE_CONT, pid, 0, 0);
  int status = 0;
  waitpid(pid, &status, 0);
  printf("child exited %d with %d\n", WIFEXITED(status), WEXITSTATUS(status));
  return 0;
}
