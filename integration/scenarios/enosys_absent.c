// scenario: calls whose effects replay could not reproduce (userfaultfd,
// io_uring, memfd_secret) answer ENOSYS while recording, as on a kernel
// without them; the program falls back to plain reads. Natively they may
// work, so what they answered is a "~" line; the result is the same either
// way. (Linux AIO is recorded: its read goes through the ring.)
#include "scenario.h"

#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif

static const char* outcome(long r) { return r >= 0 ? "works" : errname(errno); }

int main(void) {
  char path[] = "/tmp/backstep_aioXXXXXX";
  int fd = SYS(mkstemp(path));
  SYS(write(fd, "asynchronous or not", 19));
  char buf[32] = {0};

  long uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
  nd("userfaultfd: %s\n", outcome(uffd));
  if (uffd >= 0) close((int)uffd);

  struct io_uring_params params = {0};
  long ring = syscall(SYS_io_uring_setup, 4, &params);
  nd("io_uring_setup: %s\n", outcome(ring));
  if (ring >= 0) close((int)ring);

  aio_context_t ctx = 0;
  long r = syscall(SYS_io_setup, 4, &ctx);
  nd("io_setup: %s\n", outcome(r));
  int done = 0;
  if (r == 0) {
    struct iocb cb = {0};
    cb.aio_fildes = (uint32_t)fd;
    cb.aio_lio_opcode = IOCB_CMD_PREAD;
    cb.aio_buf = (uintptr_t)buf;
    cb.aio_nbytes = 19;
    struct iocb* list[1] = {&cb};
    struct io_event ev;
    if (syscall(SYS_io_submit, ctx, 1, list) == 1 && syscall(SYS_io_getevents, ctx, 1, 1, &ev, NULL) == 1) {
      done = ev.res == 19;
    }
    syscall(SYS_io_destroy, ctx);
  }
  if (!done) CHECK(pread(fd, buf, 19, 0) == 19);  // the fallback
  printf("read: '%s'\n", buf);

  long secret = syscall(SYS_memfd_secret, 0);
  nd("memfd_secret: %s\n", outcome(secret));
  if (secret >= 0) close((int)secret);
  int plain = SYS(memfd_create("fallback", MFD_CLOEXEC));
  SYS(write(plain, "kept", 4));
  printf("memfd fallback: %ld bytes\n", (long)SYS(lseek(plain, 0, SEEK_CUR)));
  unlink(path);
  return 0;
}
