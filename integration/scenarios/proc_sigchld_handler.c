// scenario: a SIGCHLD handler that reaps and counts children; the parent
// forks 12 children one at a time and waits for each one's SIGCHLD in
// sigsuspend (SIGCHLD blocked otherwise, so none is lost or coalesced).
// Then SIGCHLD set to SIG_IGN: children are reaped by the kernel and
// wait() fails with ECHILD.
#include "proc_util.h"

static volatile sig_atomic_t handled, reaped, status_sum;

static void on_chld(int sig, siginfo_t* si, void* ctx) {
  (void)sig;
  (void)ctx;
  handled++;
  if (si->si_code != CLD_EXITED) status_sum += 1000;
  int status;
  pid_t p;
  while ((p = waitpid(-1, &status, WNOHANG)) > 0) {
    reaped++;
    status_sum += WEXITSTATUS(status);
  }
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_chld;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGCHLD, &sa, NULL));
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGCHLD);
  SYS(sigprocmask(SIG_BLOCK, &block, &old));
  for (int i = 0; i < 12; i++) {
    pid_t pid = proc_fork();
    if (pid == 0) _exit(i);
    while (handled < i + 1) sigsuspend(&old);
  }
  printf("handled %d, reaped %d, status sum %d\n", (int)handled, (int)reaped, (int)status_sum);

  signal(SIGCHLD, SIG_IGN);
  SYS(sigprocmask(SIG_SETMASK, &old, NULL));
  for (int i = 0; i < 3; i++) {
    pid_t pid = proc_fork();
    if (pid == 0) _exit(5);
  }
  errno = 0;
  pid_t r = wait(NULL);  // blocks until all three are gone, then ECHILD
  printf("wait with SIGCHLD ignored: %d %s\n", r, errname(errno));
  printf("handler ran again: %d\n", handled != 12);
  return 0;
}
