// scenario: the persona and CPU affinity as the program sees them:
// personality(0xffffffff) answers what it inherited (the recorder's own
// ADDR_NO_RANDOMIZE hidden), then the program sets one and reads it back;
// sched_getaffinity shows the inherited CPUs (not the one CPU the recorder
// runs the program on) until the program sets its own mask, which it then
// reads back; protection keys (pkey_alloc fails on CPUs without them; on
// CPUs with them a key of the program's own, write-disabled by pkey_alloc,
// guards a page until the program gives itself the right in PKRU; replay
// redoes the calls, so the key number, PKRU and the page are the same;
// pkey_mprotect with key -1 is mprotect);
// scheduling parameters and priority ranges.
#include "scenario.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/syscall.h>

int main(void) {
  int inherited = personality(0xffffffff);
  printf("inherited persona: %#x\n", inherited);
  int old = personality(PER_LINUX | UNAME26);
  printf("set returned the old one: %d\n", old == inherited);
  printf("now: %#x\n", personality(0xffffffff));
  SYS(personality((unsigned long)inherited));
  printf("restored: %#x\n", personality(0xffffffff));

  cpu_set_t mask;
  CPU_ZERO(&mask);
  long copied = SYS(syscall(SYS_sched_getaffinity, 0, sizeof mask, &mask));
  printf("inherited CPUs: %d (mask of %ld bytes)\n", CPU_COUNT(&mask), copied);
  printf("sched_getaffinity by pid agrees: %d\n", sched_getaffinity(getpid(), sizeof mask, &mask) == 0);
  int first = -1;
  for (int i = 0; i < CPU_SETSIZE && first < 0; i++) {
    if (CPU_ISSET(i, &mask)) first = i;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  SYS(sched_setaffinity(0, sizeof one, &one));
  CPU_ZERO(&mask);
  SYS(sched_getaffinity(0, sizeof mask, &mask));
  printf("after setting one CPU: %d, the one set %d\n", CPU_COUNT(&mask), CPU_ISSET(first, &mask));
  nd("running on CPU %d (first allowed %d)\n", sched_getcpu(), first);

  errno = 0;
  long key = syscall(SYS_pkey_alloc, 0, 0);
  nd("pkey_alloc: %ld %s\n", key, key < 0 ? errname(errno) : "");
  if (key >= 0) {
    SYS(syscall(SYS_pkey_free, key));
    // A key that pkey_alloc write-disables (PKEY_DISABLE_WRITE = 2) on a
    // page of its own; the write waits for the right, given with wrpkru.
    long guard = syscall(SYS_pkey_alloc, 0, 2);
    CHECK(guard >= 0);
    char* keyed = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(keyed != MAP_FAILED);
    SYS(syscall(SYS_pkey_mprotect, keyed, 4096, PROT_READ | PROT_WRITE, guard));
    unsigned pkru;
    __asm__ volatile("rdpkru" : "=a"(pkru) : "c"(0) : "rdx");
    nd("key %ld: rights %u in PKRU, page reads %d\n", guard, (pkru >> (2 * guard)) & 3, keyed[0]);
    pkru &= ~(3u << (2 * guard));
    __asm__ volatile("wrpkru" : : "a"(pkru), "c"(0), "d"(0) : "memory");
    keyed[0] = 'w';
    nd("written under key %ld: %c\n", guard, keyed[0]);
    SYS(syscall(SYS_pkey_free, guard));
  }
  char* page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(page != MAP_FAILED);
  page[0] = 'k';
  SYS(syscall(SYS_pkey_mprotect, page, 4096, PROT_READ, -1));
  printf("pkey_mprotect(-1) kept the data: %c\n", page[0]);
  errno = 0;
  long r = syscall(SYS_pkey_free, 15);
  printf("pkey_free of a key never allocated: %ld %s\n", r, errname(errno));

  struct sched_param sp;
  SYS(sched_getparam(0, &sp));
  printf("priority %d, policy %d\n", sp.sched_priority, sched_getscheduler(0));
  printf("FIFO range %d..%d, RR range %d..%d\n", sched_get_priority_min(SCHED_FIFO), sched_get_priority_max(SCHED_FIFO),
         sched_get_priority_min(SCHED_RR), sched_get_priority_max(SCHED_RR));
  SYS(setpriority(PRIO_PROCESS, 0, 3));
  printf("nice now %d\n", getpriority(PRIO_PROCESS, 0));
  return 0;
}
