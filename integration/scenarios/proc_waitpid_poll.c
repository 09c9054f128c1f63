// scenario: waitpid(WNOHANG) polling: 0 while the child is blocked in a
// read, then, once the parent has written, polled until the child is
// gone (the number of polls varies, so it is a "~" line).
#include "proc_util.h"

#include <sched.h>

int main(void) {
  int go[2];
  SYS(pipe(go));
  pid_t pid = proc_fork();
  if (pid == 0) {
    close(go[1]);
    char c;
    ssize_t r = read(go[0], &c, 1);
    long sum = 0;
    for (int i = 0; i < 100000; i++) sum += i % 7;
    _exit(r == 1 && sum > 0 ? 33 : 1);
  }
  close(go[0]);
  int status = -1;
  for (int i = 0; i < 5; i++) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    printf("poll %d before the write: %d\n", i, r);
  }
  write_full(go[1], "g", 1);
  long polls = 0;
  pid_t r;
  while ((r = waitpid(pid, &status, WNOHANG)) == 0) {
    polls++;
    sched_yield();
  }
  CHECK(r == pid);
  nd("%ld polls before the child was gone\n", polls);
  printf("child: %s\n", status_text(status));
  errno = 0;
  {
    long r = (long)(waitpid(pid, &status, WNOHANG));
    int e = errno;
    printf("poll after: %ld %s\n", r, errname(e));
  }
  return 0;
}
