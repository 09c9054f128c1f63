// scenario: writev, pwritev and pwritev2 to a regular file and to /dev/null
// through syscall buffering: the gathered data is hashed into each record
// and compared again in replay; the file's content, read back at the end,
// shows every buffered write reached it in order. A writev to stdout (a
// pipe here, never buffered) is echoed by replay.
// expect-buffered: 250
#define _GNU_SOURCE
#include "scenario.h"

#include <fcntl.h>
#include <sys/uio.h>

int main(void) {
  int fd = SYS(open("gather.out", O_RDWR | O_CREAT | O_TRUNC, 0600));
  int null = SYS(open("/dev/null", O_WRONLY));
  char a[32], b[32];
  off_t at = 0;
  for (int i = 0; i < 100; i++) {
    int na = snprintf(a, sizeof a, "[%d:", i);
    int nb = snprintf(b, sizeof b, "%d]\n", i * i);
    struct iovec iov[3] = {{a, (size_t)na}, {(void*)"-", 1}, {b, (size_t)nb}};
    ssize_t w = SYS(writev(fd, iov, 3));
    at += w;
    SYS(writev(null, iov, 3));
    if (i % 2 == 0) {
      struct iovec tail[1] = {{(void*)"p", 1}};
      SYS(pwritev(fd, tail, 1, at));
      at += 1;
      SYS(lseek(fd, at, SEEK_SET));
    } else {
      struct iovec tail[1] = {{(void*)"q", 1}};
      SYS(pwritev2(fd, tail, 1, at, 0));
      at += 1;
      SYS(lseek(fd, at, SEEK_SET));
    }
  }
  char back[8192];
  ssize_t n = SYS(pread(fd, back, sizeof back, 0));
  uint64_t h = fnv1a(back, (size_t)n, FNV_INIT);
  struct iovec line[2] = {{(void*)"file hash ", 10}, {b, (size_t)snprintf(b, sizeof b, "%016llx %zd\n", (unsigned long long)h, n)}};
  SYS(writev(1, line, 2));
  close(fd);
  close(null);
  unlink("gather.out");
  return 0;
}
