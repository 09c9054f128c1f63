// scenario: a forked child (not the process a debugger would attach to)
// spins without system calls until its timer's signal comes, once in a loop
// that counts in memory and once in one that computes in registers; the
// recorder forces a position in the child each time. Replay must find those
// positions in the child too (its traps once went only into the debugged
// process, so the child ran past them: "reached a system call before the
// position the recording chose"). The parent waits and reports.
#include "scenario.h"

#include <signal.h>
#include <sys/time.h>
#include <sys/wait.h>

static volatile sig_atomic_t fired;
static volatile unsigned long counter;

static void on_alarm(int sig) {
  (void)sig;
  fired = 1;
}

__attribute__((noinline)) static void count_in_memory(void) {
  while (!fired) counter++;
}

__attribute__((noinline)) static unsigned long count_in_registers(void) {
  unsigned long acc = 1;
  for (unsigned long i = 1; !fired; ++i) acc = acc * 6364136223846793005ul + i;
  return acc;
}

static void arm(long usec) {
  struct itimerval t = {{0, 0}, {0, usec}};
  SYS(setitimer(ITIMER_REAL, &t, NULL));
}

int main(void) {
  fflush(stdout);
  pid_t child = fork();
  CHECK(child >= 0);
  if (child == 0) {
    struct sigaction sa = {0};
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    SYS(sigaction(SIGALRM, &sa, NULL));
    arm(30000);
    count_in_memory();
    printf("child: counter loop left: %s\n", counter > 0 ? "counted" : "never ran");
    nd("child: counter %lu\n", (unsigned long)counter);
    fired = 0;
    arm(30000);
    unsigned long acc = count_in_registers();
    printf("child: register loop left\n");
    nd("child: acc %lx\n", acc);
    fflush(stdout);
    _exit(7);
  }
  int status = 0;
  SYS(waitpid(child, &status, 0));
  printf("parent: child exited with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
