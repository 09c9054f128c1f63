// scenario: signals read as data: signalfd for blocked SIGUSR1/SIGUSR2,
// sigwaitinfo, sigtimedwait with a timeout, sigsuspend.
#include "scenario.h"

#include <signal.h>
#include <sys/signalfd.h>
#include <time.h>

static volatile sig_atomic_t handled;
static void on_usr1(int sig) { (void)sig; handled++; }

int main(void) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGUSR1);
  sigaddset(&set, SIGUSR2);
  SYS(sigprocmask(SIG_BLOCK, &set, NULL));
  int sfd = SYS(signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK));
  raise(SIGUSR2);
  kill(getpid(), SIGUSR1);
  struct signalfd_siginfo si[2];
  ssize_t n = SYS(read(sfd, si, sizeof si));
  printf("signalfd read %zd bytes (%zd signals)\n", n, n / (ssize_t)sizeof si[0]);
  for (int i = 0; i < n / (ssize_t)sizeof si[0]; i++) {
    printf("  signal %s, sender is me: %s\n", si[i].ssi_signo == SIGUSR1 ? "SIGUSR1" : "SIGUSR2",
           si[i].ssi_pid == (uint32_t)getpid() ? "yes" : "no");
    nd("  ssi_pid %u ssi_uid %u code %d\n", si[i].ssi_pid, si[i].ssi_uid, si[i].ssi_code);
  }
  errno = 0;
  CHECK(read(sfd, si, sizeof si) == -1);
  printf("empty signalfd: %s\n", errname(errno));
  SYS(close(sfd));

  raise(SIGUSR2);
  siginfo_t info;
  int sig = SYS(sigwaitinfo(&set, &info));
  printf("sigwaitinfo: %s code %d\n", sig == SIGUSR2 ? "SIGUSR2" : "?", info.si_code);
  struct timespec to = {0, 10000000};
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  errno = 0;
  int r = sigtimedwait(&set, &info, &to);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
  printf("sigtimedwait with nothing pending: %d %s, waited >= 10 ms: %s\n", r,
         errno == EAGAIN ? "EAGAIN" : errname(errno), ms >= 10 ? "yes" : "no");

  signal(SIGUSR1, on_usr1);
  raise(SIGUSR1);
  printf("still blocked, handled %d\n", (int)handled);
  sigset_t wait_mask;
  sigemptyset(&wait_mask);
  errno = 0;
  r = sigsuspend(&wait_mask);
  printf("sigsuspend: %d %s, handled %d\n", r, errname(errno), (int)handled);
  return 0;
}
