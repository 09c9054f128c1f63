// scenario: a child that execs (replay --onfork): gdb hears of the exec
// scenario: (exec-events), reloads the program, stops at `catch exec`, and
// scenario: its breakpoints work in the new program, which is this one again
// scenario: with the argument "again" (its code at the same addresses).
// debug: --onfork child 1
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int counter;

__attribute__((noinline)) void child_work(int round) {
  counter += round;
}

__attribute__((noinline)) void again_work(int round) {
  counter += 10 * round;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "again") == 0) {
    for (int i = 1; i <= 2; i++) again_work(i);
    printf("again: %d\n", counter);
    return counter;
  }
  pid_t p = fork();
  if (p == 0) {
    for (int i = 1; i <= 3; i++) child_work(i);
    execl("./tree_fork_exec", "tree_fork_exec", "again", (char*)NULL);
    _exit(1);
  }
  int status = 0;
  waitpid(p, &status, 0);
  printf("parent: child exited %d, counter %d\n", WEXITSTATUS(status), counter);
  return 0;
}
