// scenario: process_vm_readv and process_vm_writev on this process itself:
// reading one buffer into two local iovecs, writing two buffers into one
// remote iovec, and a partial read whose second iovec starts on an unmapped
// page. A foreign pid that does not exist fails with ESRCH.
#include "scenario.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>

int main(void) {
  pid_t self = getpid();
  char source[32] = "0123456789abcdefghijklmnopqrstu";
  char a[10], b[22];
  memset(a, '.', sizeof a);
  memset(b, '.', sizeof b);
  struct iovec local[2] = {{a, sizeof a}, {b, sizeof b}};
  struct iovec remote[1] = {{source, 32}};
  long r = syscall(SYS_process_vm_readv, self, local, 2, remote, 1, 0);
  printf("readv: %ld '%.10s' '%.21s'\n", r, a, b);

  char target[24];
  memset(target, '-', sizeof target);
  char x[] = "first+", y[] = "second";
  struct iovec from[2] = {{x, 6}, {y, 6}};
  struct iovec to[1] = {{target, 12}};
  r = syscall(SYS_process_vm_writev, self, from, 2, to, 1, 0);
  printf("writev: %ld '%.24s'\n", r, target);

  // Two pages, the second unmapped: the read stops at the hole.
  char* pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(pages != MAP_FAILED);
  CHECK(munmap(pages + 4096, 4096) == 0);
  char* dst = pages + 4096 - 8;
  memset(pages, '=', 4096);
  struct iovec partial_local[1] = {{dst, 16}};
  struct iovec partial_remote[1] = {{source, 16}};
  errno = 0;
  r = syscall(SYS_process_vm_readv, self, partial_local, 1, partial_remote, 1, 0);
  printf("partial readv: %ld %s '%.8s'\n", r, r < 0 ? errname(errno) : "-", dst);

  errno = 0;
  r = syscall(SYS_process_vm_readv, 0x3ffffff0, local, 2, remote, 1, 0);
  printf("readv unknown pid: %ld %s\n", r, errno == ESRCH ? "ESRCH" : errname(errno));
  return 0;
}
