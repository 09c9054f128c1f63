// scenario: a recorded tracer whose waitpid for a running tracee is broken
// off by a signal, with the recorder playing the kernel's part: a test
// harness's timeout. The parent seizes a child that computes without
// stopping, and waits for it under an interval timer:
//  - without SA_RESTART, the timer's SIGALRM ends the wait with EINTR
//    after its handler ran;
//  - with SA_RESTART, the handler runs, the wait goes on, and the handler
//    kills the child at its second run: the wait then reports its death.
// What the waits returned and how often the handler ran are the native
// run's; the recording replays with the binary gone.
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t alarms;
static volatile pid_t victim;

static void on_alarm(int sig) {
  (void)sig;
  alarms++;
  if (victim && alarms == 2) {
    // The timer stops here, not after the wait: on a busy machine the
    // parent may run 30 ms after the kill, and a third SIGALRM would come.
    struct itimerval off;
    memset(&off, 0, sizeof(off));
    setitimer(ITIMER_REAL, &off, NULL);
    kill(victim, SIGKILL);
  }
}

static void every(long ms) {
  struct itimerval t = {{0, ms * 1000}, {0, ms * 1000}};
  setitimer(ITIMER_REAL, &t, NULL);
}

static void handle(int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_alarm;
  sa.sa_flags = flags;
  sigaction(SIGALRM, &sa, NULL);
}

int main(void) {
  pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned long n = 0;
    for (;;) n++;  // never stops by itself
  }
  if (ptrace(PTRACE_SEIZE, pid, 0, 0) != 0) {
    perror("PTRACE_SEIZE");
    return 1;
  }

  handle(0);
  every(30);
  int status = 0;
  errno = 0;
  pid_t r = waitpid(pid, &status, 0);
  int err = errno;
  every(0);
  printf("waitpid without SA_RESTART: %d, %s, handler ran %d\n", (int)r, strerror(err), alarms > 0);

  alarms = 0;
  victim = pid;
  handle(SA_RESTART);
  every(30);
  r = waitpid(pid, &status, 0);
  every(0);
  printf("waitpid with SA_RESTART: the child %d, killed by %d, handler ran %d times\n", r == pid,
         WIFSIGNALED(status) ? WTERMSIG(status) : 0, (int)alarms);
  return 0;
}
