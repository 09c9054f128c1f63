// scenario: Linux AIO on a buffered file: io_setup's ring (its header read
// in user space, as libaio does), io_submit of reads (pread and preadv)
// and a write, which finish inside io_submit, and an fsync, which the
// kernel finishes asynchronously; io_getevents with min_nr and with a zero
// timeout, io_pgetevents, the data the reads filled, io_cancel of a
// finished request, and io_destroy. Where the kernel has no AIO, the errors.
#include "scenario.h"

#include <fcntl.h>
#include <linux/aio_abi.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>

struct ring_header {
  unsigned id, nr, head, tail, magic, compat, incompat, header_length;
};

static long submit(aio_context_t ctx, struct iocb* cb) {
  struct iocb* list[1] = {cb};
  return syscall(SYS_io_submit, ctx, 1, list);
}

int main(void) {
  char path[] = "/tmp/backstep_aioXXXXXX";
  int fd = SYS(mkstemp(path));
  char text[8192];
  for (size_t i = 0; i < sizeof text; i++) text[i] = (char)('a' + i % 26);
  SYS(write(fd, text, sizeof text));
  aio_context_t ctx = 0;
  if (syscall(SYS_io_setup, 16, &ctx) != 0) {
    printf("io_setup: %s\n", errname(errno));
    unlink(path);
    return 0;
  }
  const struct ring_header* ring = (const struct ring_header*)ctx;
  printf("ring: magic %#x, head %u tail %u, room for at least 16: %d\n", ring->magic, ring->head, ring->tail,
         ring->nr >= 16);

  char buf1[100] = {0}, buf2[50] = {0}, buf3[50] = {0};
  struct iocb rd = {0};
  rd.aio_fildes = (uint32_t)fd;
  rd.aio_lio_opcode = IOCB_CMD_PREAD;
  rd.aio_buf = (uintptr_t)buf1;
  rd.aio_nbytes = 99;
  rd.aio_offset = 26 * 3;
  rd.aio_data = 1;
  SYS(submit(ctx, &rd));
  printf("after one submit: tail - head = %u\n", (ring->tail - ring->head + ring->nr) % ring->nr);
  struct iovec iov[2] = {{buf2, 49}, {buf3, 49}};
  struct iocb rdv = {0};
  rdv.aio_fildes = (uint32_t)fd;
  rdv.aio_lio_opcode = IOCB_CMD_PREADV;
  rdv.aio_buf = (uintptr_t)iov;
  rdv.aio_nbytes = 2;
  rdv.aio_offset = 8192 - 60;  // a short read: 60 bytes left
  rdv.aio_data = 2;
  SYS(submit(ctx, &rdv));
  struct iocb wr = {0};
  wr.aio_fildes = (uint32_t)fd;
  wr.aio_lio_opcode = IOCB_CMD_PWRITE;
  wr.aio_buf = (uintptr_t)"WRITTEN BY AIO";
  wr.aio_nbytes = 14;
  wr.aio_offset = 10;
  wr.aio_data = 3;
  SYS(submit(ctx, &wr));
  struct iocb sync = {0};
  sync.aio_fildes = (uint32_t)fd;
  sync.aio_lio_opcode = IOCB_CMD_FSYNC;
  sync.aio_data = 4;
  errno = 0;
  long r = submit(ctx, &sync);
  printf("fsync submitted: %ld %s\n", r, r == 1 ? "" : errname(errno));

  struct io_event events[8];
  long n = SYS(syscall(SYS_io_getevents, ctx, 2, 2, events, NULL));
  for (long i = 0; i < n; i++) printf("event %llu: res %lld\n", (unsigned long long)events[i].data, (long long)events[i].res);
  struct timespec zero = {0, 0}, patience = {10, 0};
  // The write, and the fsync, which the kernel finishes asynchronously.
  n = SYS(syscall(SYS_io_pgetevents, ctx, 2, 8, events, &patience, NULL));
  for (long i = 0; i < n; i++) printf("event %llu: res %lld\n", (unsigned long long)events[i].data, (long long)events[i].res);
  n = SYS(syscall(SYS_io_getevents, ctx, 0, 8, events, &zero));
  printf("nothing left: %ld, head == tail %d\n", n, ring->head == ring->tail);
  printf("pread: '%.20s...' (%zu bytes)\n", buf1, strlen(buf1));
  printf("preadv: '%.10s' + '%.11s'\n", buf2, buf3);
  char check[15] = {0};
  SYS(pread(fd, check, 14, 10));
  printf("written: '%s'\n", check);
  struct io_event cancelled;
  errno = 0;
  r = syscall(SYS_io_cancel, ctx, &rd, &cancelled);
  printf("cancel a finished request: %ld %s\n", r, errname(errno));
  SYS(syscall(SYS_io_destroy, ctx));
  errno = 0;
  r = syscall(SYS_io_getevents, ctx, 0, 1, events, &zero);
  printf("after io_destroy: %ld %s\n", r, errname(errno));
  unlink(path);
  return 0;
}
