// scenario: pidfds of the program itself: pidfd_open, pidfd_send_signal to
// a handler (siginfo code SI_USER... from the pidfd), poll on the pidfd,
// pidfd_getfd copying one of our descriptors; the futex calls one thread
// can make: FUTEX_WAIT on a changed value, a timed-out wait, wakes with no
// waiter, and the futex2 futex_wake/futex_wait.
#include "scenario.h"

#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>

#ifndef SYS_futex_wake
#define SYS_futex_wake 454
#define SYS_futex_wait 455
#endif
#define FUTEX2_SIZE_U32 0x02
#define FUTEX2_PRIVATE 128

static volatile sig_atomic_t got_sig, got_code;
static void on_usr2(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  got_sig = sig;
  got_code = info->si_code;
}

int main(void) {
  int pidfd = SYS(syscall(SYS_pidfd_open, getpid(), 0));
  struct sigaction sa = {0};
  sa.sa_sigaction = on_usr2;
  sa.sa_flags = SA_SIGINFO;
  SYS(sigaction(SIGUSR2, &sa, NULL));
  SYS(syscall(SYS_pidfd_send_signal, pidfd, SIGUSR2, NULL, 0));
  printf("signal %d code %d\n", got_sig, got_code);
  struct pollfd p = {pidfd, POLLIN, 0};
  printf("poll on a live process: %d\n", (int)SYS(poll(&p, 1, 0)));
  int pipefd[2];
  SYS(pipe(pipefd));
  int copy = syscall(SYS_pidfd_getfd, pidfd, pipefd[1], 0);
  if (copy < 0) {
    printf("pidfd_getfd: %s\n", errname(errno));
  } else {
    SYS(write(copy, "through the copy", 16));
    char buf[32] = {0};
    SYS(read(pipefd[0], buf, sizeof buf - 1));
    printf("pidfd_getfd: '%s'\n", buf);
    close(copy);
  }
  errno = 0;
  int bad = syscall(SYS_pidfd_open, 0x7fffffff, 0);
  printf("pidfd_open of no process: %d %s\n", bad, errno == ESRCH ? "ESRCH" : errname(errno));

  uint32_t word = 5;
  struct timespec short_wait = {0, 1000000};
  errno = 0;
  long r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 4, &short_wait);
  printf("FUTEX_WAIT, value changed: %ld %s\n", r, errname(errno));
  errno = 0;
  r = syscall(SYS_futex, &word, FUTEX_WAIT_PRIVATE, 5, &short_wait);
  printf("FUTEX_WAIT, nobody wakes: %ld %s\n", r, errname(errno));
  printf("FUTEX_WAKE: %ld\n", syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1));
  errno = 0;
  r = syscall(SYS_futex_wake, &word, 0xffffffffUL, 1, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE);
  printf("futex_wake: %ld %s\n", r, errname(errno));
  struct timespec deadline;
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  deadline.tv_nsec += 1000000;
  if (deadline.tv_nsec >= 1000000000) {
    deadline.tv_sec++;
    deadline.tv_nsec -= 1000000000;
  }
  errno = 0;
  r = syscall(SYS_futex_wait, &word, 5, 0xffffffffUL, FUTEX2_SIZE_U32 | FUTEX2_PRIVATE, &deadline, CLOCK_MONOTONIC);
  printf("futex_wait: %ld %s\n", r, errname(errno));
  close(pidfd);
  return 0;
}
