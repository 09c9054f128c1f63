// scenario: address-space layouts: a MAP_GROWSDOWN mapping grown by a touch
// below it and mprotect(PROT_GROWSDOWN); adjacent anonymous mappings with
// equal flags that merge, then munmap/mprotect splitting them; a 1 TiB
// PROT_NONE MAP_NORESERVE reservation with parts made read-write.
#include "scenario.h"

#include <sys/mman.h>

int main(void) {
  long page = sysconf(_SC_PAGESIZE);

  // Room below the growsdown mapping (the kernel keeps a guard gap).
  unsigned char* area = mmap(NULL, 1024 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(area != MAP_FAILED);
  SYS(munmap(area, 1024 * page));
  unsigned char* g = mmap(area + 1000 * page, 4 * page, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN | MAP_FIXED, -1, 0);
  CHECK(g == area + 1000 * page);
  memset(g, 0x44, 4 * page);
  g[-1] = 1;  // the touch just below grows it by one page
  printf("grew down: %d %d\n", g[-1], g[0]);
  SYS(mprotect(g, page, PROT_READ | PROT_GROWSDOWN));
  errno = 0;
  int r = mprotect(g - page, page, PROT_READ | PROT_WRITE | PROT_GROWSDOWN);
  printf("mprotect PROT_GROWSDOWN: %s\n", r == 0 ? "ok" : errname(errno));
  SYS(munmap(g - 16 * page, 24 * page));

  unsigned char* base = mmap(NULL, 12 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(base != MAP_FAILED);
  SYS(munmap(base, 12 * page));
  for (int i = 0; i < 3; i++) {
    unsigned char* m = mmap(base + 4 * i * page, 4 * page, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    CHECK(m == base + 4 * i * page);
    memset(m, 0x10 + i, 4 * page);
  }
  // One mapping now: mremap of a range across the three succeeds.
  unsigned char* moved = mremap(base + 2 * page, 8 * page, 8 * page, MREMAP_MAYMOVE);
  printf("mremap across merged mappings: %s\n", moved == MAP_FAILED ? errname(errno) : "ok");
  CHECK(moved != MAP_FAILED);
  printf("moved data: %d %d %d\n", moved[0], moved[3 * page], moved[7 * page]);
  SYS(mprotect(moved + 2 * page, page, PROT_READ));
  SYS(munmap(moved + 5 * page, page));
  errno = 0;
  unsigned char* across = mremap(moved, 4 * page, 5 * page, MREMAP_MAYMOVE);
  printf("mremap across a split: %s\n", across == MAP_FAILED ? errname(errno) : "ok");
  SYS(mprotect(moved + 2 * page, page, PROT_READ | PROT_WRITE));
  errno = 0;
  unsigned char* joined = mremap(moved, 5 * page, 4 * page, 0);
  printf("mremap after re-merging: %s\n", joined == MAP_FAILED ? errname(errno) : "ok");
  SYS(munmap(moved, 8 * page));  // (the merged range has shrunk to 4 pages)
  SYS(munmap(base, 2 * page));
  SYS(munmap(base + 10 * page, 2 * page));

  size_t huge = (size_t)1 << 40;
  unsigned char* res = mmap(NULL, huge, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (res == MAP_FAILED) {
    printf("1 TiB reservation: %s\n", errname(errno));
    return 0;
  }
  size_t offs[] = {0, (size_t)1 << 30, ((size_t)1 << 39) + 12345 * page, huge - 2 * page};
  for (int i = 0; i < 4; i++) {
    SYS(mprotect(res + offs[i], 2 * page, PROT_READ | PROT_WRITE));
    res[offs[i]] = (unsigned char)(i + 1);
    res[offs[i] + 2 * page - 1] = (unsigned char)(i + 5);
  }
  long s = 0;
  for (int i = 0; i < 4; i++) s += res[offs[i]] + res[offs[i] + 2 * page - 1];
  printf("1 TiB reservation, four windows: sum %ld\n", s);
  SYS(munmap(res, huge));
  return 0;
}
