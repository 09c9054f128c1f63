// scenario: a 64-bit program making 32-bit system calls with int 0x80,
// whose numbers mean other calls in the 64-bit table (4 is write there,
// stat here; 1 is exit, not write): write to stdout, stderr and a dup of
// stdout, read from stdin, getpid, gettid, getuid32, sched_yield, close,
// and finally exit(3). Buffers must lie below 4 GiB (MAP_32BIT).
// stdin: input line
// expect-exit: 3
// requires: ia32-emulation
#include "scenario.h"

#include <sys/mman.h>
#include <sys/syscall.h>

static long int80(long nr, long a, long b, long c) {
  long r;
  __asm__ volatile("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
  return r;
}

static char* low;  // below 4 GiB

static long say(int fd, const char* s) {
  strcpy(low, s);
  return int80(4, fd, (long)low, (long)strlen(s));
}

static int getpid32_runs(void) { return int80(20, 0, 0, 0) > 0; }

int main(void) {
  require_machine("IA32 emulation (int 0x80 faults)", getpid32_runs);
  low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  CHECK(low != MAP_FAILED);
  long r = say(1, "stdout through int 0x80 write\n");
  printf("write returned %ld\n", r);
  fflush(stdout);
  say(2, "stderr through int 0x80 write\n");
  strcpy(low, "eax 4 with upper bits set: still write\n");
  int80(0x100000004, 1, (long)low, (long)strlen(low));  // the kernel reads eax only
  int copy = SYS(dup(1));
  say(copy, "stdout copy through int 0x80 write\n");
  printf("getpid: %s\n", int80(20, 0, 0, 0) == getpid() ? "same" : "differs");
  printf("gettid: %s\n", int80(224, 0, 0, 0) == syscall(SYS_gettid) ? "same" : "differs");
  printf("getuid32: %s\n", int80(199, 0, 0, 0) == getuid() ? "same" : "differs");
  printf("sched_yield: %ld\n", int80(158, 0, 0, 0));
  memset(low, 0, 64);
  r = int80(3, 0, (long)(low + 100), 63);
  printf("read: %ld [%.*s]\n", r, r > 0 ? (int)r - 1 : 0, low + 100);
  long first = int80(6, copy, 0, 0);
  printf("close: %ld, again: %ld\n", first, int80(6, copy, 0, 0));
  r = int80(4, 1, 0x10, 5);  // a bad pointer: EFAULT
  printf("write from a bad pointer: %ld\n", r);
  fflush(stdout);
  int80(1, 3, 0, 0);  // exit(3)
  return 0;
}
