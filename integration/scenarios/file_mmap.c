// scenario: mmap of an input file read-only and MAP_PRIVATE writable (copy on
// write, the file is unchanged), at offset 0 and at a page offset. The driver
// rewrites the file in place after recording: replay must map the recorded
// contents.
// input-lines: mapped.txt 400
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

int main(void) {
  int fd = SYS(open("mapped.txt", O_RDONLY));
  struct stat st;
  SYS(fstat(fd, &st));
  size_t len = st.st_size;
  printf("file size %zu\n", len);

  char* ro = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
  CHECK(ro != MAP_FAILED);
  char* nl = memchr(ro, '\n', len);
  CHECK(nl != NULL);
  printf("first line: %.*s\n", (int)(nl - ro), ro);
  printf("checksum ro: %016llx\n", (unsigned long long)fnv1a(ro, len, FNV_INIT));
  nd("ro map at %p\n", (void*)ro);

  int rw_fd = SYS(open("mapped.txt", O_RDONLY));
  char* cow = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, rw_fd, 0);
  CHECK(cow != MAP_FAILED);
  memcpy(cow, "PRIVATE!", 8);
  cow[len - 2] = '#';
  char head[8];
  SYS(pread(fd, head, 8, 0));
  printf("cow head [%.8s], file head [%.8s], ro map head [%.8s]\n", cow, head, ro);
  printf("checksum cow: %016llx\n", (unsigned long long)fnv1a(cow, len, FNV_INIT));

  long page = sysconf(_SC_PAGESIZE);
  char* off = mmap(NULL, 2 * page, PROT_READ, MAP_PRIVATE, fd, page);
  CHECK(off != MAP_FAILED);
  size_t cmp_len = len - page < (size_t)(2 * page) ? len - page : (size_t)(2 * page);
  printf("offset map equals file at %ld: %s\n", page,
         memcmp(off, ro + page, cmp_len) == 0 ? "yes" : "no");
  // Past the end of the file, the last page reads as zeros.
  size_t tail = len % page;
  if (tail != 0) {
    char* last = ro + (len - tail);
    int zeros = 0;
    for (long i = tail; i < page; i++) zeros += last[i] == 0;
    printf("zero bytes after EOF in last page: %d\n", zeros);
  }
  SYS(munmap(off, 2 * page));
  SYS(munmap(cow, len));
  SYS(munmap(ro, len));
  SYS(close(rw_fd));
  SYS(close(fd));
  return 0;
}
