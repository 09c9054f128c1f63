// scenario: job control between recorded processes: the parent stops its
// child with SIGSTOP and sees it stopped (waitpid WUNTRACED), continues it
// with SIGCONT and sees that (WCONTINUED), then reaps its exit status. The
// recorder lets the kernel really stop the child (a group-stop) and waits
// for the SIGCONT.
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
int main(void) {
  // p: child -> parent; go: parent -> child. The child waits on `go` until
  // the parent has seen it stopped and continued, so that it cannot exit
  // first however slowly the parent runs.
  int p[2], go[2];
  pipe(p);
  pipe(go);
  pid_t c = fork();
  if (c == 0) {
    close(p[0]);
    close(go[1]);
    char g;
    write(p[1], "t", 1);
    read(go[0], &g, 1);
    for (int i = 0; i < 2; i++) write(p[1], "t", 1);
    _exit(7);
  }
  close(p[1]);
  close(go[0]);
  char ch;
  read(p[0], &ch, 1);
  kill(c, SIGSTOP);
  int st;
  pid_t r = waitpid(c, &st, WUNTRACED);
  printf("waitpid %d stopped=%d sig=%d\n", r == c, WIFSTOPPED(st), WIFSTOPPED(st) ? WSTOPSIG(st) : 0);
  kill(c, SIGCONT);
  r = waitpid(c, &st, WCONTINUED);
  printf("continued=%d\n", WIFCONTINUED(st));
  write(go[1], "g", 1);
  while (read(p[0], &ch, 1) == 1) {}
  waitpid(c, &st, 0);
  printf("exit %d\n", WEXITSTATUS(st));
  return 0;
}
