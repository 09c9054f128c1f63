// scenario: a MAP_SHARED writable mapping of a file the program creates: stores
// through the mapping are seen by read(), and write() is seen through the
// mapping, with msync in between. Data includes getrandom bytes.
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/random.h>

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  size_t len = 4 * page;
  int fd = SYS(open("shared.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
  SYS(ftruncate(fd, len));
  unsigned char* m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED);
  unsigned char rnd[32];
  CHECK(getrandom(rnd, sizeof rnd, 0) == sizeof rnd);
  memcpy(m + page + 100, rnd, sizeof rnd);
  memcpy(m, "via-mapping", 11);
  SYS(msync(m, len, MS_SYNC));
  unsigned char back[32];
  SYS(pread(fd, back, sizeof back, page + 100));
  printf("read() sees mapping stores: %s\n", memcmp(back, rnd, 32) == 0 ? "yes" : "no");
  nd_hex("random via file", back, sizeof back);
  SYS(pwrite(fd, "via-write", 9, 2 * page));
  printf("mapping sees write(): [%.9s]\n", (char*)m + 2 * page);
  char head[12] = {0};
  SYS(pread(fd, head, 11, 0));
  printf("file head: [%s]\n", head);
  // A second shared mapping of the same page aliases the first.
  unsigned char* alias = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(alias != MAP_FAILED);
  alias[0] = 'V';
  printf("alias store visible: %c\n", m[0]);
  SYS(munmap(alias, page));
  SYS(munmap(m, len));
  SYS(close(fd));
  SYS(unlink("shared.bin"));
  return 0;
}
