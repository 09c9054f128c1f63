// scenario: a private file mapping that reaches past the file's end, with no
// shared mapping of the file: its part within the file replaced by other
// memory (as ld.so does with a library's first mapping), its part past the
// end faults with SIGBUS until the file grows and then reads the file; the
// mapping moved and grown by mremap still follows the file's size, and
// faults again once the file shrinks. Another one with a page past the end
// unmapped still follows its file's size in the rest.
#include "scenario.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile int buses;

static void on_bus(int sig) {
  CHECK(sig == SIGBUS);
  buses++;
  siglongjmp(env, 1);
}

static void peek(const char* what, volatile unsigned char* p) {
  if (sigsetjmp(env, 1) == 0) {
    printf("%s: reads %d\n", what, *p);
  } else {
    printf("%s: SIGBUS\n", what);
  }
}

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  struct sigaction sa = {0};
  sa.sa_handler = on_bus;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGBUS, &sa, NULL));

  int fd = SYS(open("data.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
  SYS(write(fd, "0123456789", 10));
  unsigned char* pr = mmap(NULL, 8 * page, PROT_READ, MAP_PRIVATE, fd, 0);
  CHECK(pr != MAP_FAILED);
  printf("page 0 reads the file: %c\n", pr[3]);
  peek("page 2", pr + 2 * page);

  // The part within the file is replaced; the rest stays mapped.
  CHECK(mmap(pr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == pr);
  SYS(ftruncate(fd, 3 * page));
  SYS(pwrite(fd, "grown", 5, 2 * page));
  peek("page 2 after the file grew", pr + 2 * page);
  peek("page 3", pr + 3 * page);

  // File pages 1..7 moved elsewhere and grown to pages 1..9.
  unsigned char* moved = mremap(pr + page, 7 * page, 9 * page, MREMAP_MAYMOVE);
  CHECK(moved != MAP_FAILED);
  SYS(ftruncate(fd, 6 * page));
  SYS(pwrite(fd, "five", 4, 5 * page));
  peek("moved: file page 5", moved + 4 * page);
  peek("moved: file page 6", moved + 5 * page);
  peek("moved: file page 9 (grown part)", moved + 8 * page);
  SYS(ftruncate(fd, 10 * page));
  peek("moved: file page 9 after the file grew", moved + 8 * page);
  SYS(ftruncate(fd, 2 * page));
  peek("moved: file page 2 after shrinking", moved + page);
  SYS(munmap(pr, page));
  SYS(munmap(moved, 9 * page));
  SYS(close(fd));

  int fd2 = SYS(open("data2.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
  SYS(write(fd2, "0123456789", 10));
  unsigned char* pr2 = mmap(NULL, 4 * page, PROT_READ, MAP_PRIVATE, fd2, 0);
  CHECK(pr2 != MAP_FAILED);
  SYS(munmap(pr2 + page, page));
  peek("second file: page 2", pr2 + 2 * page);
  SYS(ftruncate(fd2, 3 * page));
  peek("second file: page 2 after the file grew", pr2 + 2 * page);
  peek("second file: page 3", pr2 + 3 * page);
  printf("SIGBUS count: %d\n", buses);
  SYS(munmap(pr2, page));
  SYS(munmap(pr2 + 2 * page, 2 * page));
  SYS(close(fd2));
  return 0;
}
