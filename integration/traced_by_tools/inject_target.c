// What strace changes in run_traced_by_tool.py --tool strace-inject while
// backstep records strace itself: strace's `-e inject` makes the second
// write fail with EIO and answers getppid with 4242 without running it,
// changing the registers at each call's entry and exit stops.
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
  long first = syscall(SYS_write, 1, "one\n", 4);
  long second = syscall(SYS_write, 1, "two\n", 4);
  int second_errno = errno;
  long parent = syscall(SYS_getppid);
  printf("writes: %ld, %ld (%s); getppid %ld\n", first, second, strerror(second_errno), parent);
  return 0;
}
