// scenario: process groups and sessions: a child makes its own group
// (setpgid), a second child joins it, a third calls setsid (new session,
// no terminal), setpgid of a session leader fails with EPERM, and kill()
// of the whole group reaches both members.
#include "proc_util.h"

int main(void) {
  pid_t me = getpid();
  // Whether the program leads its own group depends on who started it (a
  // shell with job control, the test driver, the recorder).
  nd("parent: pgid %s own pid\n", getpgid(0) == me ? "is" : "is not");
  int ready[2];
  SYS(pipe(ready));
  pid_t a = proc_fork();
  if (a == 0) {
    SYS(setpgid(0, 0));
    child_say("a: leads its group %d, same session as the parent %d\n", getpgid(0) == getpid(), getsid(0) == getsid(getppid()));
    write_full(ready[1], "a", 1);
    for (;;) pause();
  }
  setpgid(a, a);
  char c;
  CHECK(read(ready[0], &c, 1) == 1);
  pid_t b = proc_fork();
  if (b == 0) {
    SYS(setpgid(0, a));
    child_say("b: in a's group %d\n", getpgid(0) == a);
    write_full(ready[1], "b", 1);
    for (;;) pause();
  }
  setpgid(b, a);
  CHECK(read(ready[0], &c, 1) == 1);
  printf("getpgid(a) == a %d, getpgid(b) == a %d\n", getpgid(a) == a, getpgid(b) == a);
  SYS(kill(-a, SIGTERM));
  int s1 = wait_for(a), s2 = wait_for(b);
  printf("group killed: a %s, ", status_text(s1));
  printf("b %s\n", status_text(s2));

  pid_t s = proc_fork();
  if (s == 0) {
    pid_t sid = setsid();
    int ok = sid == getpid() && getsid(0) == getpid() && getpgid(0) == getpid();
    errno = 0;
    int r = setpgid(0, getppid());
    int e1 = errno;
    errno = 0;
    int r2 = (int)setsid();
    int e2 = errno;
    child_say("s: new session %d, leaves it again: %d %s, setsid again: %d %s\n", ok, r, errname(e1), r2,
              errname(e2));
    _exit(0);
  }
  printf("session child: %s\n", status_text(wait_for(s)));
  errno = 0;
  {
    long r = (long)(setpgid(s, s));
    int e = errno;
    printf("setpgid of a reaped child: %ld %s\n", r, errname(e));
  }
  return 0;
}
