// scenario: the program patches its own memory through /proc/self/mem
// (pwrite, write at the file position, pwritev) and reads it back (pread):
// the stores happen inside system calls, and replay must show them.
#include "scenario.h"

#include <fcntl.h>
#include <sys/uio.h>

static char target[64] = "original contents of the target";

int main(void) {
  int fd = SYS(open("/proc/self/mem", O_RDWR | O_CLOEXEC));
  off_t at = (off_t)(uintptr_t)target;
  ssize_t n = SYS(pwrite(fd, "PATCHED", 7, at));
  printf("pwrite %zd: '%s'\n", n, target);
  char back[16] = {0};
  n = SYS(pread(fd, back, 8, at));
  printf("pread %zd: '%s'\n", n, back);
  SYS(lseek(fd, at + 12, SEEK_SET));
  SYS(write(fd, "WRITE", 5));
  printf("write: '%s'\n", target);
  struct iovec iov[2] = {{"ab", 2}, {"cd", 2}};
  SYS(pwritev(fd, iov, 2, at + 20));
  printf("pwritev: '%s'\n", target);
  static int counter = 1;
  int next = counter + 41;
  SYS(pwrite(fd, &next, sizeof next, (off_t)(uintptr_t)&counter));
  printf("counter: %d\n", counter);
  close(fd);
  return 0;
}
