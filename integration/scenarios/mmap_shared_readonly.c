// scenario: read-only shared mappings of a file the program then writes
// with write(2), pwrite(2) and writev(2): the mapping shows the new bytes
// (replay must put them there although the pages are not writable), a
// second read-only alias at another offset.
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
  SYS(pwrite(fd, "pwrite here", 11, 100));
  printf("after pwrite: '%.11s'\n", whole + 100);
  SYS(lseek(fd, 4096 + 50, SEEK_SET));
  SYS(write(fd, "written at 4146", 15));
  printf("after write: '%.15s', alias '%.15s'\n", whole + 4146, second + 50);
  struct iovec iov[2] = {{"gather", 6}, {"ed", 2}};
  SYS(pwritev(fd, iov, 2, 8000));
  printf("after pwritev: '%.8s', alias '%.8s'\n", whole + 8000, second + 8000 - 4096);
  uint64_t sum = fnv1a(whole, 8192, FNV_INIT);
  printf("checksum %016llx\n", (unsigned long long)sum);
  unlink(path);
  return 0;
}
