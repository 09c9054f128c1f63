// scenario: anonymous mmap (private and shared), a hint address, MAP_FIXED
// over part of a mapping, munmap of a middle page, mprotect round trips,
// MAP_NORESERVE and MAP_POPULATE.
#include "scenario.h"

#include <sys/mman.h>

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  size_t len = 16 * page;
  unsigned char* a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(a != MAP_FAILED);
  int zeros = 1;
  for (size_t i = 0; i < len; i++) zeros &= a[i] == 0;
  printf("fresh anonymous memory is zero: %d\n", zeros);
  for (size_t i = 0; i < len; i++) a[i] = (unsigned char)(i * 7);
  printf("checksum %016llx\n", (unsigned long long)fnv1a(a, len, FNV_INIT));
  nd("anon at %p\n", (void*)a);

  // MAP_FIXED replaces pages 4..5 with fresh zero pages.
  void* f = mmap(a + 4 * page, 2 * page, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  CHECK(f == a + 4 * page);
  printf("after MAP_FIXED: page 3 byte %d, page 4 byte %d, page 6 byte %d\n", a[3 * page + 1],
         a[4 * page + 1], a[6 * page + 1]);
  SYS(munmap(a + 8 * page, page));
  SYS(mprotect(a, page, PROT_READ));
  SYS(mprotect(a, page, PROT_READ | PROT_WRITE));
  a[0] = 99;
  printf("after mprotect round trip: %d\n", a[0]);
  SYS(mprotect(a + 10 * page, page, PROT_NONE));
  SYS(munmap(a, 8 * page));
  SYS(munmap(a + 9 * page, 7 * page));

  // Shared anonymous memory.
  unsigned* sh = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(sh != MAP_FAILED);
  sh[10] = 0xfeedf00d;
  printf("shared anon: %x\n", sh[10]);
  SYS(munmap(sh, page));

  // A huge reservation touched in three places.
  size_t huge = (size_t)1 << 32;
  unsigned char* h = mmap(NULL, huge, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  CHECK(h != MAP_FAILED);
  h[0] = 1;
  h[huge / 2] = 2;
  h[huge - 1] = 3;
  printf("noreserve touches: %d %d %d\n", h[0], h[huge / 2], h[huge - 1]);
  SYS(munmap(h, huge));

  unsigned char* p = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  CHECK(p != MAP_FAILED);
  p[5 * page] = 5;
  printf("populated: %d\n", p[5 * page]);

  // A hint next to an existing mapping: the kernel may or may not honour it.
  void* hint = p + 64 * page;
  void* q = mmap(hint, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(q != MAP_FAILED);
  nd("hint honoured: %d\n", q == hint);
  errno = 0;
  CHECK(mmap(NULL, page, PROT_READ, MAP_PRIVATE, -1, 0) == MAP_FAILED);
  printf("file mmap with fd -1: %s\n", errname(errno));
  errno = 0;
  CHECK(munmap((char*)p + 1, page) == -1);
  printf("unaligned munmap: %s\n", errname(errno));
  SYS(munmap(q, page));
  SYS(munmap(p, 8 * page));
  return 0;
}
