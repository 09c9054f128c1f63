// scenario: a parent forks two children; gdb debugs the second from its
// scenario: fork (its first instruction is the return from fork), while the
// scenario: parent and the first child replay around it: breakpoints and a
// scenario: watchpoint in the child, reverse execution bounded by its start.
// debug: --onfork child 2
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

long acc;

__attribute__((noinline)) void acc_step(int i) {
  acc = acc * 3 + i;
}

static int child(int id) {
  for (int i = 0; i < 5; i++) acc_step(i + id);
  printf("child %d: %ld\n", id, acc);
  return (int)(acc % 50);
}

int main(void) {
  for (int id = 1; id <= 2; id++) {
    pid_t pid = fork();
    if (pid == 0) _exit(child(id));
  }
  int total = 0;
  for (int n = 0; n < 2; n++) {
    int st = 0;
    wait(&st);
    total += WEXITSTATUS(st);
  }
  printf("parent: %d\n", total);
  return 0;
}
