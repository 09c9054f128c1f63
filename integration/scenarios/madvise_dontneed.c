// scenario: MADV_DONTNEED on anonymous memory (reads back zeros) and on a
// MAP_PRIVATE file mapping (reads back the file's contents, which the driver
// changes after recording); other advice values are harmless.
// input: page.txt = original file contents, page one\n
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  size_t len = 16 * page;
  unsigned char* a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(a != MAP_FAILED);
  memset(a, 0xab, len);
  SYS(madvise(a + 4 * page, 8 * page, MADV_DONTNEED));
  int zeros = 0, kept = 0;
  for (size_t i = 0; i < len; i++) {
    zeros += a[i] == 0;
    kept += a[i] == 0xab;
  }
  printf("anonymous after DONTNEED: %d zero bytes, %d kept\n", zeros, kept);
  SYS(madvise(a, len, MADV_WILLNEED));
  SYS(madvise(a, len, MADV_SEQUENTIAL));
  SYS(madvise(a, len, MADV_NORMAL));
  SYS(munmap(a, len));

  int fd = SYS(open("page.txt", O_RDONLY));
  char* m = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  CHECK(m != MAP_FAILED);
  printf("mapped: %.*s", (int)strcspn(m, "\n") + 1, m);
  memcpy(m, "PRIVATE COPY", 12);
  printf("modified: %.*s", (int)strcspn(m, "\n") + 1, m);
  SYS(madvise(m, page, MADV_DONTNEED));
  printf("after DONTNEED: %.*s", (int)strcspn(m, "\n") + 1, m);
  SYS(munmap(m, page));
  SYS(close(fd));
  errno = 0;
  CHECK(madvise((char*)a + 1, page, MADV_DONTNEED) == -1);
  printf("unaligned madvise: %s\n", errname(errno));
  return 0;
}
