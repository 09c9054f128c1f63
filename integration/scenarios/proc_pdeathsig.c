// scenario: prctl(PR_SET_PDEATHSIG): the program makes itself a child
// subreaper, forks a middle process, which forks a child that asks for
// SIGTERM when its parent dies and then waits in pause(). The middle
// process exits; the child gets SIGTERM and dies of it, reparented to the
// program, which reaps it and sees the signal.
#include "proc_util.h"

#include <sys/prctl.h>

int main(void) {
  SYS(prctl(PR_SET_CHILD_SUBREAPER, 1));
  int ready[2];
  SYS(pipe(ready));
  pid_t middle = proc_fork();
  if (middle == 0) {
    close(ready[0]);
    int armed[2];
    if (pipe(armed) != 0) _exit(5);
    pid_t child = fork();
    if (child == -1) _exit(3);
    if (child == 0) {
      if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0) _exit(4);
      int sig = 0;
      prctl(PR_GET_PDEATHSIG, &sig);
      char line[64];
      int n = snprintf(line, sizeof line, "child: pdeathsig %s\n", sigabbrev_np(sig));
      write_full(ready[1], line, (size_t)n);
      close(ready[1]);
      close(armed[0]);
      write_full(armed[1], "a", 1);
      close(armed[1]);
      for (;;) pause();
    }
    close(ready[1]);
    close(armed[1]);
    // Exit once the child has set its death signal.
    char c;
    _exit(read(armed[0], &c, 1) == 1 ? 0 : 6);
  }
  close(ready[1]);
  char buf[128];
  size_t n = read_full(ready[0], buf, sizeof buf - 1);
  buf[n] = 0;
  printf("%s", buf);
  printf("middle: %s\n", status_text(wait_for(middle)));
  int status;
  pid_t r = wait(&status);
  CHECK(r > 0);
  printf("orphan reaped by the subreaper: %s\n", status_text(status));
  errno = 0;
  {
    long r = (long)(wait(NULL));
    int e = errno;
    printf("then: %ld %s\n", r, errname(e));
  }
  return 0;
}
