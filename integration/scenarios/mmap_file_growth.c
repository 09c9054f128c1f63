// scenario: file mappings larger than their file: touching past the end
// raises SIGBUS (handled), until the program extends the file with
// ftruncate or write(); then the new pages read what was written. A shared
// mapping's stores are seen by read() and write() is seen through it.
#include "scenario.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

static sigjmp_buf env;
static volatile int buses;

static void on_bus(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  (void)si;
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
  sa.sa_sigaction = on_bus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGBUS, &sa, NULL));

  int fd = SYS(open("data.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
  SYS(write(fd, "0123456789", 10));
  unsigned char* sh = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(sh != MAP_FAILED);
  unsigned char* pr = mmap(NULL, 8 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  CHECK(pr != MAP_FAILED);
  printf("first page tail is zero: %d %d\n", sh[100], pr[page - 1]);
  peek("shared page 2", sh + 2 * page);
  peek("private page 2", pr + 2 * page);

  SYS(ftruncate(fd, 3 * page));
  peek("shared page 2 after ftruncate", sh + 2 * page);
  peek("private page 2 after ftruncate", pr + 2 * page);
  peek("shared page 3 after ftruncate", sh + 3 * page);
  sh[2 * page + 1] = 'S';
  char c = 0;
  SYS(pread(fd, &c, 1, 2 * page + 1));
  printf("read() sees the store in the new page: %c\n", c);

  SYS(pwrite(fd, "written", 7, 5 * page + 3));
  printf("shared sees write() past the old end: %.7s\n", (char*)sh + 5 * page + 3);
  printf("private sees it too: %.7s\n", (char*)pr + 5 * page + 3);
  peek("shared page 4 (a hole now)", sh + 4 * page);
  peek("shared page 6", sh + 6 * page);

  SYS(ftruncate(fd, page));
  peek("shared page 2 after shrinking", sh + 2 * page);
  peek("private page 2 after shrinking", pr + 2 * page);
  printf("SIGBUS count: %d\n", buses);
  SYS(munmap(sh, 8 * page));
  SYS(munmap(pr, 8 * page));
  SYS(close(fd));
  return 0;
}
