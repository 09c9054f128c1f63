// scenario: mappings of /dev/zero: MAP_PRIVATE is private anonymous memory,
// MAP_SHARED shared anonymous memory (each mmap a new object); both read as
// zeros, keep what is stored, are split by munmap/mprotect and moved and
// grown by mremap. mmap of /dev/null fails as natively.
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  int fd = SYS(open("/dev/zero", O_RDWR));

  unsigned char* p = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  CHECK(p != MAP_FAILED);
  int zero = 1;
  for (long i = 0; i < 8 * page; i++) zero &= p[i] == 0;
  printf("private /dev/zero reads zeros: %d\n", zero);
  for (long i = 0; i < 8 * page; i++) p[i] = (unsigned char)(i * 7);
  printf("private checksum %016llx\n", (unsigned long long)fnv1a(p, 8 * page, FNV_INIT));
  SYS(munmap(p + 2 * page, page));
  SYS(mprotect(p + 4 * page, page, PROT_READ));
  printf("private after split: %d %d\n", p[page + 3], p[4 * page + 5]);

  unsigned char* s = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(s != MAP_FAILED);
  memset(s, 0x5a, 4 * page);
  // A second shared mapping of /dev/zero is a new, separate object.
  unsigned char* t = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(t != MAP_FAILED);
  printf("second shared mapping separate: %d\n", t[0] == 0 && t[4 * page - 1] == 0);
  // Moving a shared mapping keeps its object; growing it does not grow the
  // object (touching the grown part would raise SIGBUS).
  unsigned char* target = mmap(NULL, 16 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(target != MAP_FAILED);
  unsigned char* moved = mremap(s, 4 * page, 16 * page, MREMAP_MAYMOVE | MREMAP_FIXED, target);
  CHECK(moved == target);
  printf("moved shared keeps data: %d\n", moved[4 * page - 1] == 0x5a);
  moved[page] = 9;
  unsigned char* shrunk = mremap(moved, 16 * page, 2 * page, 0);
  CHECK(shrunk == moved);
  printf("shrunk shared keeps data: %d %d\n", shrunk[page], shrunk[page + 1]);
  SYS(munmap(t, 4 * page));
  SYS(munmap(moved, 2 * page));
  SYS(munmap(p, 8 * page));
  SYS(close(fd));

  // Anonymous memory of another device: mmap of /dev/null fails as natively.
  int null = SYS(open("/dev/null", O_RDWR));
  errno = 0;
  void* n = mmap(NULL, page, PROT_READ, MAP_PRIVATE, null, 0);
  printf("mmap /dev/null: %s\n", n != MAP_FAILED ? "mapped" : errno == ENODEV ? "ENODEV" : errname(errno));
  SYS(close(null));
  return 0;
}
