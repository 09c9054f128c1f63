// scenario: a program started with a 64 MiB stack limit (as under
// `ulimit -s 65536`) that recurses 20 MiB deep without changing any limit:
// the recording's limit decides how far its stack grows, and replay, which
// runs under the default limit, must give it the same room.
// stack-limit: 67108864
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
  printf("stack limit: %ld MiB\n", (long)(rl.rlim_cur >> 20));
  printf("20 MiB deep: %ld\n", deep(2500));
  return 0;
}
