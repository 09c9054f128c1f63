// scenario: kill() between recorded processes: the parent sends SIGUSR1 to
// a child waiting in sigsuspend, the child answers with SIGUSR2 to the
// parent waiting the same way; 100 rounds. The child checks si_pid of each
// signal against getppid().
#include "proc_util.h"

static volatile sig_atomic_t got, from_ok;

static void on_sig(int sig, siginfo_t* si, void* ctx) {
  (void)sig;
  (void)ctx;
  got++;
  if (si->si_code == SI_USER && si->si_pid == getppid()) from_ok++;
}

int main(void) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGUSR1);
  sigaddset(&block, SIGUSR2);
  SYS(sigprocmask(SIG_BLOCK, &block, &old));
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sig;
  sa.sa_flags = SA_SIGINFO;
  SYS(sigaction(SIGUSR1, &sa, NULL));
  SYS(sigaction(SIGUSR2, &sa, NULL));
  pid_t parent = getpid();
  pid_t pid = proc_fork();
  if (pid == 0) {
    got = from_ok = 0;
    for (int i = 1; i <= 100; i++) {
      while (got < i) sigsuspend(&old);
      kill(parent, SIGUSR2);
    }
    _exit(from_ok == 100 ? 0 : 1);
  }
  for (int i = 1; i <= 100; i++) {
    SYS(kill(pid, SIGUSR1));
    while (got < i) sigsuspend(&old);
  }
  printf("parent got %d answers\n", (int)got);
  printf("child: %s\n", status_text(wait_for(pid)));
  return 0;
}
