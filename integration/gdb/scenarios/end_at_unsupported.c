// scenario: the recording stops at a refused system call (a number with its upper
// scenario: 32 bits set, which the kernel would truncate); the
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
  syscall(0x100000000L | SYS_getpid);
  printf("not reached\n");
  return 0;
}
