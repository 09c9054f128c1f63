// scenario: a file mapped MAP_SHARED over three pages, the middle page
// unmapped, then the file written with pwrite under the pages still
// mapped: the mapping shows the new bytes (the recorder keeps tracking the
// parts that stay mapped, and records the write as memory there).
// input: data.bin = 0
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>

int main(void) {
  int fd = SYS(open("data.bin", O_RDWR));
  SYS(ftruncate(fd, 3 * 4096));
  char* m = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED);
  m[0] = 'a';
  SYS(munmap(m + 4096, 4096));
  SYS(pwrite(fd, "third", 5, 2 * 4096));
  SYS(pwrite(fd, "first", 5, 16));
  printf("%.5s %.5s %c\n", m + 2 * 4096, m + 16, m[0]);
  return 0;
}
