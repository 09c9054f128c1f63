// scenario: ftruncate shrinking and growing, truncate by path, fsync,
// fdatasync, fallocate; sizes are read back with fstat and read.
#include "scenario.h"

#include <fcntl.h>
#include <sys/stat.h>

static long size_of(int fd) {
  struct stat st;
  SYS(fstat(fd, &st));
  return (long)st.st_size;
}

int main(void) {
  int fd = SYS(open("t.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
  char buf[5000];
  for (int i = 0; i < 100; i++) buf[i] = (char)('A' + i % 26);
  SYS(write(fd, buf, 100));
  printf("size after write: %ld\n", size_of(fd));
  SYS(ftruncate(fd, 10));
  printf("size after ftruncate(10): %ld\n", size_of(fd));
  SYS(ftruncate(fd, 5000));
  printf("size after ftruncate(5000): %ld\n", size_of(fd));
  ssize_t n = SYS(pread(fd, buf, sizeof buf, 0));
  int zeros = 0;
  for (ssize_t i = 10; i < n; i++) zeros += buf[i] == 0;
  printf("read %zd: head [%.10s], zero tail bytes %d\n", n, buf, zeros);
  SYS(fsync(fd));
  SYS(fdatasync(fd));
  SYS(truncate("t.bin", 20));
  printf("size after truncate(path, 20): %ld\n", size_of(fd));
  int r = fallocate(fd, 0, 0, 65536);
  if (r == 0)
    printf("size after fallocate: %ld\n", size_of(fd));
  else
    printf("fallocate unsupported here (%s)\n", errname(errno));
  errno = 0;
  CHECK(ftruncate(fd, -1) == -1);
  printf("ftruncate(-1): %s\n", errname(errno));
  int ro = SYS(open("t.bin", O_RDONLY));
  errno = 0;
  CHECK(ftruncate(ro, 0) == -1);
  printf("ftruncate read-only fd: %s\n", errname(errno));
  SYS(close(ro));
  SYS(close(fd));
  SYS(unlink("t.bin"));
  return 0;
}
