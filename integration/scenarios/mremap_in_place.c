// scenario: mremap growing mappings in place (no MREMAP_MAYMOVE) into room
// the program freed next to them: private anonymous, shared anonymous (whose
// object keeps its size: the grown part faults with SIGBUS), and a shared
// file mapping grown past the file's end, then the file grown into it and
// written with pwrite, before and after the mapping moves; MREMAP_DONTUNMAP of anonymous
// memory (the old range stays mapped and reads zeros).
#include "scenario.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP 4
#endif

static sigjmp_buf env;
static volatile int bus_code;

static void on_bus(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  CHECK(sig == SIGBUS);
  bus_code = si->si_code;
  siglongjmp(env, 1);
}

// A mapping of `len` pages at the start of a 64-page hole.
static unsigned char* with_room(long page, size_t len, int flags, int fd) {
  unsigned char* hole = mmap(NULL, 64 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(hole != MAP_FAILED);
  unsigned char* m = mmap(hole, len * page, PROT_READ | PROT_WRITE, flags | MAP_FIXED, fd, 0);
  CHECK(m == hole);
  SYS(munmap(hole + len * page, (64 - len) * page));
  return m;
}

static void touch(const char* what, volatile unsigned char* p) {
  if (sigsetjmp(env, 1) == 0) {
    *p = 0x77;
    printf("%s: stored %d\n", what, *p);
  } else {
    printf("%s: SIGBUS, code %s\n", what, bus_code == BUS_ADRERR ? "BUS_ADRERR" : "other");
  }
}

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  struct sigaction sa = {0};
  sa.sa_sigaction = on_bus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGBUS, &sa, NULL));

  unsigned char* a = with_room(page, 4, MAP_PRIVATE | MAP_ANONYMOUS, -1);
  memset(a, 0x11, 4 * page);
  unsigned char* a2 = mremap(a, 4 * page, 32 * page, 0);
  printf("private grown in place: %d\n", a2 == a);
  touch("private grown part", a2 + 31 * page);
  printf("private old part kept: %d\n", a2[4 * page - 1]);
  SYS(munmap(a2, 32 * page));

  unsigned char* s = with_room(page, 4, MAP_SHARED | MAP_ANONYMOUS, -1);
  memset(s, 0x22, 4 * page);
  unsigned char* s2 = mremap(s, 4 * page, 16 * page, 0);
  printf("shared grown in place: %d\n", s2 == s);
  touch("shared grown part", s2 + 8 * page);
  printf("shared old part kept: %d\n", s2[page]);
  unsigned char* s3 = mremap(s2, 16 * page, 2 * page, 0);
  printf("shared shrunk in place: %d, %d\n", s3 == s, s3[2 * page - 1]);
  SYS(munmap(s3, 2 * page));

  int fd = SYS(open("grow.bin", O_CREAT | O_RDWR | O_TRUNC, 0644));
  SYS(ftruncate(fd, 2 * page));
  unsigned char* f = with_room(page, 2, MAP_SHARED, fd);
  memcpy(f, "head", 4);
  unsigned char* f2 = mremap(f, 2 * page, 8 * page, 0);
  printf("file grown in place: %d\n", f2 == f);
  touch("file past its end", f2 + 5 * page);
  printf("file head kept: %.4s\n", (char*)f2);
  // The file grows into the grown mapping; write() is seen through it, also
  // once the mapping has moved.
  SYS(ftruncate(fd, 8 * page));
  touch("file grown past the old end", f2 + 5 * page);
  SYS(pwrite(fd, "pwritten", 8, 6 * page + 10));
  printf("grown mapping sees write(): %.8s\n", (char*)f2 + 6 * page + 10);
  unsigned char* spot = mmap(NULL, 8 * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(spot != MAP_FAILED);
  unsigned char* f3 = mremap(f2, 8 * page, 8 * page, MREMAP_MAYMOVE | MREMAP_FIXED, spot);
  CHECK(f3 == spot);
  SYS(pwrite(fd, "after move", 10, 7 * page + 20));
  printf("moved mapping sees write(): %.10s, and %.8s\n", (char*)f3 + 7 * page + 20, (char*)f3 + 6 * page + 10);
  f2 = f3;
  SYS(munmap(f2, 8 * page));
  SYS(close(fd));

  unsigned char* d = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(d != MAP_FAILED);
  memset(d, 0x33, 4 * page);
  errno = 0;
  unsigned char* d2 = mremap(d, 4 * page, 4 * page, MREMAP_MAYMOVE | MREMAP_DONTUNMAP);
  if (d2 == MAP_FAILED) {
    printf("MREMAP_DONTUNMAP: %s\n", errname(errno));
  } else {
    printf("MREMAP_DONTUNMAP moved: %d, new has data %d, old reads %d\n", d2 != d, d2[page], d[page]);
    SYS(munmap(d2, 4 * page));
  }
  SYS(munmap(d, 4 * page));
  return 0;
}
