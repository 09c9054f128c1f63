// scenario: the recording stops at an unsupported system call (fork); the
// scenario: code just before it can still be reached, and history ends at it
// expect-exit: 125
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int marker;

__attribute__((noinline)) void before_unsupported(void) {
  marker = 42;
}

int main(void) {
  marker = 1;
  before_unsupported();
  syscall(SYS_fork);
  printf("not reached\n");
  return 0;
}
