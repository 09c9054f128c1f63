// scenario: a parent forks three children in turn, each of which computes and
// scenario: exits with its own status, and sums the statuses it reaps. gdb
// scenario: debugs the parent: breakpoints, reverse-continue across the
// scenario: children's lives, a watchpoint, and a checkpoint taken while a
// scenario: child exists, restored with `run c1`.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int total;

__attribute__((noinline)) int child_work(int i) {
  int x = 0;
  for (int k = 0; k <= i * 10; k++) x += k;
  return x % 100;
}

__attribute__((noinline)) void reaped(int i, int status) {
  total += status;
  printf("reaped child %d: %d\n", i, status);
}

__attribute__((noinline)) void forked(int i) {
  (void)i;
}

int main(void) {
  for (int i = 0; i < 3; i++) {
    pid_t pid = fork();
    if (pid == 0) _exit(child_work(i + 1));
    forked(i);
    int st = 0;
    waitpid(pid, &st, 0);
    reaped(i, WEXITSTATUS(st));
  }
  printf("total %d\n", total);
  return 0;
}
