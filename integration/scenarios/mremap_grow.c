// scenario: mremap growing in place or moving (MREMAP_MAYMOVE), to a fixed
// address (MREMAP_FIXED), and shrinking; contents survive every move.
#include "scenario.h"

#include <sys/mman.h>

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  unsigned char* a = mmap(NULL, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                          -1, 0);
  CHECK(a != MAP_FAILED);
  // The third page becomes a separate PROT_NONE mapping that blocks growth
  // in place.
  void* blocker = mmap(a + 2 * page, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
                       -1, 0);
  CHECK(blocker == a + 2 * page);
  for (long i = 0; i < 2 * page; i++) a[i] = (unsigned char)(i % 251);
  uint64_t h = fnv1a(a, 2 * page, FNV_INIT);

  errno = 0;
  CHECK(mremap(a, 2 * page, 64 * page, 0) == MAP_FAILED);
  printf("grow in place without MREMAP_MAYMOVE: %s\n", errname(errno));

  unsigned char* b = mremap(a, 2 * page, 64 * page, MREMAP_MAYMOVE);
  CHECK(b != MAP_FAILED);
  printf("contents kept after grow: %s\n", fnv1a(b, 2 * page, FNV_INIT) == h ? "yes" : "no");
  int zero = 1;
  for (long i = 2 * page; i < 64 * page; i++) zero &= b[i] == 0;
  printf("new pages zero: %d\n", zero);
  nd("moved from %p to %p\n", (void*)a, (void*)b);
  b[63 * page] = 42;

  unsigned char* target = mmap(NULL, 64 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(target != MAP_FAILED);
  unsigned char* c = mremap(b, 64 * page, 64 * page, MREMAP_MAYMOVE | MREMAP_FIXED, target);
  CHECK(c == target);
  printf("after MREMAP_FIXED: same checksum %s, last page byte %d\n",
         fnv1a(c, 2 * page, FNV_INIT) == h ? "yes" : "no", c[63 * page]);
  unsigned char* d = mremap(c, 64 * page, page, 0);
  CHECK(d == c);
  printf("shrunk, first bytes %d %d %d\n", d[0], d[1], d[250]);
  SYS(munmap(d, page));
  SYS(munmap(blocker, page));
  return 0;
}
