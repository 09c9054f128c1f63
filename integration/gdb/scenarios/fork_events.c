// scenario: fork events (fork-events+, vfork-events+): gdb hears of each
// scenario: child the debugged process makes, stops at `catch fork` and
// scenario: `catch vfork`, and detaches the child ("Detaching after fork");
// scenario: the children are not debugged, so the breakpoint they pass does
// scenario: not stop them. Going back, no fork is reported; going forwards
// scenario: again, the catchpoint stops again.
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int total;

__attribute__((noinline)) void work(int i) {
  total += i;
}

int main(void) {
  for (int round = 1; round <= 2; round++) {
    pid_t p = fork();
    if (p == 0) {
      work(100);
      _exit(round);
    }
    int st = 0;
    waitpid(p, &st, 0);
    work(WEXITSTATUS(st));
  }
  pid_t v = vfork();
  if (v == 0) _exit(7);
  int st = 0;
  waitpid(v, &st, 0);
  work(WEXITSTATUS(st));
  printf("total %d\n", total);
  return 0;
}
