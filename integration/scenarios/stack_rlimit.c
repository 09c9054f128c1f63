// scenario: a program that raises its RLIMIT_STACK (setrlimit, then
// prlimit64 on itself) and recurses deeper than the default 8 MiB would
// allow: the stack grows on demand when recorded, and replay must give it
// the same room.
#include "scenario.h"

#include <sys/resource.h>

static long deep(int n) {
  volatile char frame[8192];
  frame[0] = (char)n;
  frame[sizeof frame - 1] = 1;
  return n ? deep(n - 1) + frame[0] + frame[sizeof frame - 1] : 0;
}

int main(void) {
  struct rlimit rl;
  SYS(getrlimit(RLIMIT_STACK, &rl));
  nd("initial stack limit %ld\n", (long)rl.rlim_cur);
  rl.rlim_cur = 64 << 20;
  if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < rl.rlim_cur) rl.rlim_cur = rl.rlim_max;
  SYS(setrlimit(RLIMIT_STACK, &rl));
  printf("20 MiB deep: %ld\n", deep(2500));
  struct rlimit more = {128 << 20, rl.rlim_max}, old;
  if (more.rlim_max != RLIM_INFINITY && more.rlim_max < more.rlim_cur) more.rlim_cur = more.rlim_max;
  SYS(prlimit(0, RLIMIT_STACK, &more, &old));
  printf("old soft limit 64 MiB: %d\n", old.rlim_cur == (rlim_t)(64 << 20));
  printf("40 MiB deep: %ld\n", deep(5000));
  return 0;
}
