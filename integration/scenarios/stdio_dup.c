// scenario: output through other descriptors of stdout and stderr, which
// replay must re-emit on the right stream: dup, dup2, fcntl F_DUPFD and
// F_DUPFD_CLOEXEC copies, /dev/stdout and /dev/stderr opened anew, stderr
// made a copy of stdout; with write, writev, sendfile, splice from a file
// and vmsplice.
// input: src.txt = kernel-copied line\n
#include "scenario.h"

#include <fcntl.h>
#include <sys/sendfile.h>
#include <sys/uio.h>

static void say(int fd, const char* s) { CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s)); }

int main(void) {
  int out = SYS(dup(1));
  say(out, "stdout through dup(1)\n");
  SYS(dup2(2, 9));
  say(9, "stderr through dup2(2, 9)\n");
  int out20 = SYS(fcntl(1, F_DUPFD, 20));
  struct iovec iov[2] = {{"stdout through F_DUPFD, ", 24}, {"with writev\n", 12}};
  CHECK(writev(out20, iov, 2) == 36);
  int err30 = SYS(fcntl(2, F_DUPFD_CLOEXEC, 30));
  say(err30, "stderr through F_DUPFD_CLOEXEC\n");
  int dev_out = SYS(open("/dev/stdout", O_WRONLY | O_APPEND));
  say(dev_out, "stdout through /dev/stdout opened anew\n");
  int dev_err = SYS(open("/dev/stderr", O_WRONLY | O_APPEND));
  say(dev_err, "stderr through /dev/stderr opened anew\n");

  int src = SYS(open("src.txt", O_RDONLY));
  off_t off = 0;
  ssize_t n = SYS(sendfile(out, src, &off, 100));
  loff_t loff = 0;
  CHECK(splice(src, &loff, err30, NULL, (size_t)n, 0) == n);
  struct iovec v = {"stdout through vmsplice\n", 24};
  CHECK(vmsplice(out20, &v, 1, 0) == 24);

  // stderr becomes a copy of stdout: what it writes is stdout's now.
  int saved = SYS(dup(2));
  SYS(dup2(1, 2));
  say(2, "fd 2 now writes to stdout\n");
  SYS(dup2(saved, 2));
  say(2, "fd 2 is stderr again\n");
  // Not our output: a file, and a descriptor closed in between.
  int file = SYS(open("other.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644));
  say(file, "into a file\n");
  SYS(close(out));
  errno = 0;
  CHECK(write(out, "x", 1) == -1);
  printf("write to the closed copy: %s\n", errname(errno));
  return 0;
}
