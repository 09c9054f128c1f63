// scenario: double fork: a middle process forks a grandchild and exits; the
// grandchild, now an orphan reparented elsewhere, keeps running and writes
// to a pipe; the original parent reaps the middle process, then reads the
// orphan's report until end of file (when the orphan exits).
#include "proc_util.h"

int main(void) {
  int report[2], go[2];
  SYS(pipe(report));
  SYS(pipe(go));
  pid_t middle = proc_fork();
  if (middle == 0) {
    close(report[0]);
    close(go[1]);
    pid_t grandchild = fork();
    if (grandchild == -1) _exit(3);
    if (grandchild == 0) {
      // Wait until the parent has reaped the middle process: the orphan
      // has been reparented by then.
      char c;
      if (read(go[0], &c, 1) != 1) _exit(4);
      pid_t ppid = getppid();
      if (ppid == getpid()) _exit(5);
      char line[128];
      // Who adopted it depends on the machine (init, a service manager, the
      // recorder: each may be a subreaper), so the line varies.
      int n = snprintf(line, sizeof line, "~ orphan: adopted by %s\n", ppid == 1 ? "init" : "a subreaper");
      write_full(report[1], line, (size_t)n);
      long sum = 0;
      for (int i = 1; i <= 1000; i++) sum += i;
      n = snprintf(line, sizeof line, "orphan: sum %ld\n", sum);
      write_full(report[1], line, (size_t)n);
      _exit(0);
    }
    _exit(11);
  }
  close(report[1]);
  close(go[0]);
  printf("middle: %s\n", status_text(wait_for(middle)));
  errno = 0;
  {
    long r = (long)waitpid(-1, NULL, WNOHANG);
    int e = errno;
    printf("no more children: %ld %s\n", r, errname(e));
  }
  write_full(go[1], "g", 1);
  close(go[1]);
  char buf[512];
  size_t n = read_full(report[0], buf, sizeof buf - 1);
  buf[n] = 0;
  printf("%s", buf);
  printf("report ended (the orphan is gone)\n");
  return 0;
}
