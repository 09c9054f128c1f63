// scenario: reads into bad or partly bad buffers: EFAULT for a wild
// pointer, a short read that stops at a PROT_NONE page, a readv from a
// pipe that fills part of its first buffer before failing with EFAULT (the
// bytes it stored must be there in replay too), fstat into a struct that
// crosses into PROT_NONE, write and open from wild pointers.
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>

// An address no mapping holds (volatile: the compiler must not see through it).
static void* volatile wild = (void*)16;

int main(void) {
  int fd = SYS(open("/proc/self/exe", O_RDONLY));
  errno = 0;
  ssize_t n = read(fd, wild, 100);
  printf("read to a wild pointer: %zd %s\n", n, errname(errno));
  char* m = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(m != MAP_FAILED);
  SYS(mprotect(m + 4096, 4096, PROT_NONE));
  n = SYS(read(fd, m + 4000, 200));
  printf("read up to PROT_NONE: %zd, ELF magic %d\n", n, memcmp(m + 4000, "\177ELF", 4) == 0);
  printf("zero-length read: %zd\n", read(fd, m, 0));
  errno = 0;
  int r = fstat(fd, (struct stat*)(m + 4096 - 10));
  printf("fstat across PROT_NONE: %d %s\n", r, errname(errno));
  int p[2];
  SYS(pipe(p));
  SYS(write(p[1], "0123456789", 10));
  struct iovec iov[2] = {{m + 4090, 6}, {m + 4096, 4}};
  errno = 0;
  n = readv(p[0], iov, 2);
  printf("readv across PROT_NONE: %zd %s, stored '%.6s'\n", n, errname(errno), m + 4090);
  char rest[16] = {0};
  n = SYS(read(p[0], rest, sizeof rest - 1));
  printf("left in the pipe: %zd '%s'\n", n, rest);
  errno = 0;
  n = write(p[1], wild, 10);
  printf("write from a wild pointer: %zd %s\n", n, errname(errno));
  errno = 0;
  r = open((const char*)wild, O_RDONLY);
  printf("open of a wild path: %d %s\n", r, errname(errno));
  return 0;
}
