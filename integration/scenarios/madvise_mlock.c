// scenario: mlock/munlock/mlock2/mlockall/munlockall, madvise advice of every
// kind (DONTNEED, WILLNEED, DONTFORK, WIPEONFORK, REMOVE on shared memory,
// COLD, PAGEOUT, POPULATE_READ/WRITE, FREE, HUGEPAGE, DONTNEED_LOCKED) with
// what each leaves in memory, then mprotect PROT_NONE, a handled SIGSEGV,
// RW again, and a guard page (MADV_GUARD_INSTALL) that faults until removed.
#include "scenario.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>

#ifndef MADV_COLD
#define MADV_COLD 20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED 24
#endif
#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#define MADV_GUARD_REMOVE 103
#endif

static sigjmp_buf env;
static volatile int faults;

static void handler(int sig, siginfo_t* si, void* ctx) {
  (void)ctx;
  (void)si;
  CHECK(sig == SIGSEGV);
  faults++;
  siglongjmp(env, 1);
}

static void advise(const char* name, void* p, size_t len, int advice) {
  errno = 0;
  int r = madvise(p, len, advice);
  printf("madvise %s: %s\n", name, r == 0 ? "ok" : errname(errno));
}

static long sum(const unsigned char* p, size_t len) {
  long s = 0;
  for (size_t i = 0; i < len; i++) s += p[i];
  return s;
}

int main(void) {
  long page = sysconf(_SC_PAGESIZE);
  size_t len = 16 * page;
  unsigned char* a = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(a != MAP_FAILED);
  memset(a, 1, len);

  errno = 0;
  printf("mlock: %s\n", mlock(a, 2 * page) == 0 ? "ok" : errname(errno));
  printf("munlock: %s\n", munlock(a, 2 * page) == 0 ? "ok" : errname(errno));
  errno = 0;
  printf("mlock2 ONFAULT: %s\n", mlock2(a + 2 * page, page, MLOCK_ONFAULT) == 0 ? "ok" : errname(errno));
  SYS(munlock(a + 2 * page, page));
  errno = 0;
  int all = mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT);
  nd("mlockall: %s\n", all == 0 ? "ok" : errname(errno));  // depends on RLIMIT_MEMLOCK
  SYS(munlockall());

  advise("WILLNEED", a, len, MADV_WILLNEED);
  advise("DONTFORK", a, 2 * page, MADV_DONTFORK);
  advise("DOFORK", a, 2 * page, MADV_DOFORK);
  advise("WIPEONFORK", a + 2 * page, 2 * page, MADV_WIPEONFORK);
  advise("KEEPONFORK", a + 2 * page, 2 * page, MADV_KEEPONFORK);
  advise("COLD", a + 4 * page, 2 * page, MADV_COLD);
  advise("PAGEOUT", a + 6 * page, 2 * page, MADV_PAGEOUT);
  advise("HUGEPAGE", a, len, MADV_HUGEPAGE);
  advise("NOHUGEPAGE", a, len, MADV_NOHUGEPAGE);
  advise("DONTDUMP", a, len, MADV_DONTDUMP);
  advise("DODUMP", a, len, MADV_DODUMP);
  printf("after non-destructive advice: sum %ld\n", sum(a, len));
  advise("DONTNEED", a + 8 * page, 2 * page, MADV_DONTNEED);
  advise("FREE", a + 10 * page, 2 * page, MADV_FREE);
  // Freed pages may or may not be reclaimed natively: storing cancels it.
  memset(a + 10 * page, 2, 2 * page);
  advise("POPULATE_READ", a, len, MADV_POPULATE_READ);
  advise("POPULATE_WRITE", a, len, MADV_POPULATE_WRITE);
  printf("after DONTNEED and FREE: sum %ld\n", sum(a, len));
  advise("REMOVE on private", a, page, MADV_REMOVE);
  errno = 0;
  int locked = mlock(a + 12 * page, 2 * page);
  advise("DONTNEED_LOCKED", a + 12 * page, 2 * page, MADV_DONTNEED_LOCKED);
  if (locked == 0) SYS(munlock(a + 12 * page, 2 * page));
  printf("after DONTNEED_LOCKED: sum %ld\n", sum(a, len));

  unsigned char* s = mmap(NULL, 4 * page, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(s != MAP_FAILED);
  memset(s, 3, 4 * page);
  advise("REMOVE on shared", s + page, 2 * page, MADV_REMOVE);
  printf("shared after REMOVE: sum %ld\n", sum(s, 4 * page));
  advise("DONTNEED on shared", s, page, MADV_DONTNEED);
  printf("shared after DONTNEED: sum %ld\n", sum(s, 4 * page));
  advise("POPULATE_WRITE on shared", s, 4 * page, MADV_POPULATE_WRITE);

  struct sigaction sa = {0};
  sa.sa_sigaction = handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  SYS(sigaction(SIGSEGV, &sa, NULL));
  SYS(mprotect(a, len, PROT_NONE));
  advise("POPULATE_READ on PROT_NONE", a, page, MADV_POPULATE_READ);
  volatile unsigned char* v = a + 5 * page;
  if (sigsetjmp(env, 1) == 0) {
    (void)*v;
    printf("read PROT_NONE: no fault?\n");
  }
  if (sigsetjmp(env, 1) == 0) {
    *v = 7;
    printf("write PROT_NONE: no fault?\n");
  }
  printf("faults: %d\n", faults);
  // Guard pages (Linux 6.13): a fault on access, until removed.
  errno = 0;
  int guarded = madvise(a + 14 * page, page, MADV_GUARD_INSTALL);
  printf("madvise GUARD_INSTALL: %s\n", guarded == 0 ? "ok" : errname(errno));
  SYS(mprotect(a + 14 * page, 2 * page, PROT_READ | PROT_WRITE));
  if (sigsetjmp(env, 1) == 0) {
    a[14 * page] = 5;
    printf("store to the guard page: no fault\n");
  } else {
    printf("store to the guard page: SIGSEGV\n");
  }
  if (guarded == 0) advise("GUARD_REMOVE", a + 14 * page, page, MADV_GUARD_REMOVE);
  a[14 * page] = 6;
  printf("after GUARD_REMOVE: %d, faults %d\n", a[14 * page], faults);
  SYS(mprotect(a, len, PROT_READ | PROT_WRITE));
  *v = 7;
  printf("RW again: %d, sum %ld\n", *v, sum(a, len));
  SYS(munmap(s, 4 * page));
  SYS(munmap(a, len));
  return 0;
}
