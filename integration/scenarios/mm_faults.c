// scenario: mappings that fault: a private mapping of a short file (SIGBUS
// one page past its end, zeros after the data on the last page), access
// after munmap of discontiguous pieces and of the whole, a write to a page
// made read-only, a read of a PROT_NONE page, MAP_FIXED over one of them,
// MAP_FIXED_NOREPLACE refusing an occupied range, a zero-length mmap, and
// mprotect of the stack. Each fault is caught and reported by its code.
#include "scenario.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

static sigjmp_buf back;
static void on_fault(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  printf("fault: signal %d code %d\n", sig, info->si_code);
  siglongjmp(back, 1);
}

#define TRY(what, expr)                       \
  do {                                        \
    if (!sigsetjmp(back, 1)) {                \
      expr;                                   \
      printf("%s: no fault\n", what);         \
    } else {                                  \
      printf("%s: faulted\n", what);          \
    }                                         \
  } while (0)

int main(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO;
  SYS(sigaction(SIGBUS, &sa, NULL));
  SYS(sigaction(SIGSEGV, &sa, NULL));
  char path[] = "/tmp/backstep_shortXXXXXX";
  int fd = SYS(mkstemp(path));
  SYS(write(fd, "short", 5));
  volatile char* f = mmap(NULL, 3 * 4096, PROT_READ, MAP_PRIVATE, fd, 0);
  CHECK(f != MAP_FAILED);
  printf("data '%c%c%c%c%c', zero after it %d\n", f[0], f[1], f[2], f[3], f[4], f[4095]);
  TRY("past the end of the file", (void)f[4096]);
  errno = 0;
  void* z = mmap(NULL, 0, PROT_READ, MAP_PRIVATE, fd, 0);
  printf("zero-length mmap: %s\n", z == MAP_FAILED ? errname(errno) : "mapped");

  volatile char* m = mmap(NULL, 10 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(m != MAP_FAILED);
  for (int i = 0; i < 10; i++) m[i * 4096] = (char)i;
  SYS(munmap((void*)(m + 2 * 4096), 4096));
  SYS(munmap((void*)(m + 5 * 4096), 2 * 4096));
  printf("kept pages: %d %d %d\n", m[4096], m[4 * 4096], m[9 * 4096]);
  TRY("unmapped hole", m[2 * 4096] = 1);
  SYS(munmap((void*)m, 10 * 4096));
  TRY("after munmap of the whole", m[0] = 1);

  volatile char* g = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(g != MAP_FAILED);
  SYS(mprotect((void*)(g + 4096), 4096, PROT_READ));
  SYS(mprotect((void*)(g + 3 * 4096), 4096, PROT_NONE));
  TRY("write to read-only", g[4096] = 1);
  TRY("read of PROT_NONE", (void)g[3 * 4096]);
  char* fixed = mmap((void*)(g + 4096), 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  CHECK(fixed == (char*)(g + 4096));
  fixed[0] = 5;
  printf("MAP_FIXED replaced the read-only page: %d\n", g[4096]);
  errno = 0;
  void* nr = mmap((void*)g, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  printf("MAP_FIXED_NOREPLACE: %s\n", nr == MAP_FAILED ? (errno == EEXIST ? "EEXIST" : errname(errno)) : "mapped");
  int local = 1;
  uintptr_t page = (uintptr_t)&local & ~(uintptr_t)4095;
  SYS(mprotect((void*)page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC));
  local++;
  printf("stack page made executable, still writable: %d\n", local);
  unlink(path);
  return 0;
}
