// scenario: data moved by the kernel without passing through user memory:
// splice pipe->file and file->pipe, tee between pipes, vmsplice,
// copy_file_range and sendfile.
// input: src.txt = splice source text: 0123456789 abcdefghij\n
#include "scenario.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/uio.h>

int main(void) {
  int a[2], b[2];
  SYS(pipe(a));
  SYS(pipe(b));
  int src = SYS(open("src.txt", O_RDONLY));
  ssize_t n = SYS(splice(src, NULL, a[1], NULL, 4096, 0));
  printf("splice file->pipe: %zd\n", n);
  ssize_t t = SYS(tee(a[0], b[1], n, 0));
  printf("tee: %zd\n", t);
  int out = SYS(open("dst.txt", O_CREAT | O_RDWR | O_TRUNC, 0644));
  loff_t off = 5;
  ssize_t m = SYS(splice(a[0], NULL, out, &off, n, 0));
  printf("splice pipe->file at 5: %zd, offset now %lld\n", m, (long long)off);
  char buf[256];
  ssize_t r = SYS(read(b[0], buf, sizeof buf));
  printf("tee copy: %.*s", (int)r, buf);
  r = SYS(pread(out, buf, sizeof buf, 0));
  int holes = 0;
  for (int i = 0; i < 5; i++) holes += buf[i] == 0;
  printf("dst.txt: %d zero bytes then %.*s", holes, (int)(r - 5), buf + 5);

  char v1[] = "vmsplice ", v2[] = "gift\n";
  struct iovec iov[2] = {{v1, 9}, {v2, 5}};
  CHECK(SYS(vmsplice(a[1], iov, 2, 0)) == 14);
  r = SYS(read(a[0], buf, sizeof buf));
  printf("vmsplice: %.*s", (int)r, buf);

  int copy = SYS(open("copy.txt", O_CREAT | O_RDWR | O_TRUNC, 0644));
  loff_t in_off = 0;
  ssize_t c = SYS(copy_file_range(src, &in_off, copy, NULL, 1000, 0));
  printf("copy_file_range: %zd\n", c);
  off_t sf_off = 18;
  ssize_t s = SYS(sendfile(b[1], src, &sf_off, 10));
  r = SYS(read(b[0], buf, sizeof buf));
  printf("sendfile %zd: %.*s (offset now %ld)\n", s, (int)r, buf, (long)sf_off);
  r = SYS(pread(copy, buf, sizeof buf, 0));
  printf("copy.txt: %.*s", (int)r, buf);
  SYS(close(copy));
  SYS(close(out));
  SYS(close(src));
  return 0;
}
