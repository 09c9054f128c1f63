// scenario: mappings of a file the program then writes with write(2),
// pwrite(2) and pwritev(2): read-only shared ones show the new bytes (replay
// must put them there although the pages are not writable), a second alias
// at another offset too, and a private mapping shows them in the pages it
// has not copied, but keeps its own copy of the page it wrote.
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>

int main(void) {
  char path[] = "/tmp/backstep_roshXXXXXX";
  int fd = SYS(mkstemp(path));
  char page[8192];
  memset(page, '.', sizeof page);
  SYS(write(fd, page, sizeof page));
  const char* whole = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(whole != MAP_FAILED);
  const char* second = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096);
  CHECK(second != MAP_FAILED);
  char* priv = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  CHECK(priv != MAP_FAILED);
  priv[4096 + 60] = '#';  // the second page is the mapping's own from now on
  SYS(pwrite(fd, "pwrite here", 11, 100));
  printf("after pwrite: '%.11s', private '%.11s'\n", whole + 100, priv + 100);
  SYS(lseek(fd, 4096 + 50, SEEK_SET));
  SYS(write(fd, "written at 4146", 15));
  printf("after write: '%.15s', alias '%.15s', private copy '%.15s'\n", whole + 4146, second + 50, priv + 4146);
  struct iovec iov[2] = {{"gather", 6}, {"ed", 2}};
  SYS(pwritev(fd, iov, 2, 8000));
  printf("after pwritev: '%.8s', alias '%.8s'\n", whole + 8000, second + 8000 - 4096);
  printf("checksums %016llx %016llx\n", (unsigned long long)fnv1a(whole, 8192, FNV_INIT),
         (unsigned long long)fnv1a(priv, 8192, FNV_INIT));
  unlink(path);
  return 0;
}
