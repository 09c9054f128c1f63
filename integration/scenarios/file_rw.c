// scenario: open/openat/read/write/pread/pwrite/readv/writev/lseek/close on an
// input file and on files the program creates; the input is changed after
// recording, so replay must use the recorded bytes.
// input: notes.txt = alpha beta gamma\ndelta epsilon\n
#include "scenario.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <time.h>

int main(void) {
  char buf[256];

  int fd = SYS(open("notes.txt", O_RDONLY));
  ssize_t n = SYS(read(fd, buf, sizeof buf));
  printf("read %zd bytes: [%.*s]\n", n, (int)n, buf);
  CHECK(SYS(read(fd, buf, sizeof buf)) == 0);  // EOF
  n = SYS(pread(fd, buf, 4, 6));
  printf("pread@6: [%.*s]\n", (int)n, buf);
  printf("lseek end: %ld\n", (long)SYS(lseek(fd, 0, SEEK_END)));
  printf("lseek set: %ld\n", (long)SYS(lseek(fd, 11, SEEK_SET)));
  n = SYS(read(fd, buf, 5));
  printf("read@11: [%.*s]\n", (int)n, buf);
  printf("lseek cur: %ld\n", (long)SYS(lseek(fd, 1, SEEK_CUR)));
  char a[5], b[100];
  struct iovec iov[2] = {{a, sizeof a}, {b, sizeof b}};
  n = SYS(readv(fd, iov, 2));
  printf("readv %zd: [%.5s][%.*s]\n", n, a, (int)(n - 5), b);
  SYS(close(fd));
  errno = 0;
  CHECK(read(fd, buf, 1) == -1 && errno == EBADF);
  printf("read after close: %s\n", errname(errno));

  // openat relative to a directory fd, writev, pwrite, read back.
  int dirfd = SYS(open(".", O_RDONLY | O_DIRECTORY));
  int out = SYS(openat(dirfd, "out.txt", O_CREAT | O_RDWR | O_TRUNC, 0644));
  struct iovec wv[3] = {{"one ", 4}, {"two ", 4}, {"three\n", 6}};
  printf("writev: %ld\n", (long)SYS(writev(out, wv, 3)));
  printf("pwrite: %ld\n", (long)SYS(pwrite(out, "TW", 2, 4)));
  printf("offset after pwrite: %ld\n", (long)SYS(lseek(out, 0, SEEK_CUR)));
  n = SYS(pread(out, buf, sizeof buf, 0));
  printf("out.txt: [%.*s]\n", (int)n, buf);

  // Nondeterministic data through a file: the time, written then read back.
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  int len = snprintf(buf, sizeof buf, "%lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
  SYS(pwrite(out, buf, len, 100));
  char back[64] = {0};
  CHECK(SYS(pread(out, back, len, 100)) == len);
  CHECK(memcmp(back, buf, len) == 0);
  nd("time through the file: %s\n", back);
  n = SYS(pread(out, buf, 100, 14));
  int zeros = 0;
  for (ssize_t i = 0; i < n; i++) zeros += buf[i] == 0;
  printf("hole bytes read as zero: %d of %zd\n", zeros, n);
  SYS(close(out));

  // O_APPEND always writes at the end, whatever the offset.
  int app = SYS(openat(dirfd, "out.txt", O_WRONLY | O_APPEND));
  SYS(lseek(app, 0, SEEK_SET));
  SYS(write(app, "END", 3));
  printf("size after append: %ld\n", (long)SYS(lseek(app, 0, SEEK_END)));
  SYS(close(app));
  SYS(close(dirfd));
  errno = 0;
  CHECK(open("missing.txt", O_RDONLY) == -1);
  printf("open missing: %s\n", errname(errno));
  errno = 0;
  CHECK(lseek(0, 0, SEEK_CUR) == -1);  // stdin is a pipe
  printf("lseek on stdin pipe: %s\n", errname(errno));
  return 0;
}
