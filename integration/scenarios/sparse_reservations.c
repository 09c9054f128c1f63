// scenario: sparse memory as runtimes reserve it: 1 TiB of private
// anonymous MAP_NORESERVE memory with a few pages touched and mincore on a
// part, 64 GiB of shared anonymous memory, and a 1 GiB memfd heap mapped
// twice (the runtime's double mapping), each barely touched. The trace stays
// small (run_trace_size.py checks that): only what the program wrote.
#include "scenario.h"

#include <sys/mman.h>

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  size_t tib = (size_t)1 << 40;
  unsigned char* p = mmap(NULL, tib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  CHECK(p != MAP_FAILED);
  for (int i = 0; i < 16; i++) p[(size_t)i << 36] = (unsigned char)(i + 1);
  unsigned char vec[64];
  SYS(mincore(p, 64 * page, vec));
  printf("1 TiB: first page resident %d, second %d\n", vec[0] & 1, vec[1] & 1);
  SYS(madvise(p + page, tib - page, MADV_DONTNEED));
  printf("1 TiB: after DONTNEED of the rest, first byte %d, byte at 1/16 %d\n", p[0], p[(size_t)1 << 36]);
  SYS(munmap(p, tib));

  size_t big = (size_t)64 << 30;
  unsigned char* s = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  CHECK(s != MAP_FAILED);
  s[big / 2] = 7;
  s[big - 1] = 8;
  printf("64 GiB shared: %d %d %d\n", s[0], s[big / 2], s[big - 1]);
  SYS(munmap(s, big));

  size_t heap = (size_t)1 << 30;
  int fd = SYS(memfd_create("heap", 0));
  SYS(ftruncate(fd, heap));
  unsigned char* a = mmap(NULL, heap, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(a != MAP_FAILED);
  a[heap / 3] = 42;
  unsigned char* b = mmap(NULL, heap, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(b != MAP_FAILED);
  printf("memfd heap seen through both views: %d %d\n", a[heap / 3], b[heap / 3]);
  a[heap - 1] = 43;
  printf("and a later store: %d\n", b[heap - 1]);
  SYS(munmap(a, heap));
  SYS(munmap(b, heap));
  SYS(close(fd));
  return 0;
}
