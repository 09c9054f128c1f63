// A program for the DAP tests (session_fork_test.js): the parent forks a
// child that computes and exits with the result; the parent reports it.
// The debugger is given the child (launch's "pid"), as `replay -p` does.
// The comments `LINE name` mark the lines the test expects by name.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_work(int n) {
  int acc = 1;
  for (int i = 1; i <= n; i++) {  // LINE child_loop
    acc = acc * 3 % 101;          // LINE child_body
  }
  return acc;  // LINE child_return
}

int main(void) {
  pid_t child = fork();
  if (child == 0) _exit(child_work(7));  // LINE child_call
  int status = 0;
  waitpid(child, &status, 0);
  printf("child said %d\n", WEXITSTATUS(status));  // LINE report
  fflush(stdout);
  return 0;
}
