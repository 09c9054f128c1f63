// scenario: abort() (SIGABRT, after glibc unblocks it); exit status 134.
// Unflushed stdout is lost, as natively.
// expect-exit: 134
#include "scenario.h"

#include <sys/resource.h>

int main(void) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  printf("calling abort\n");
  fflush(stdout);
  printf("lost: never flushed");
  fprintf(stderr, "stderr before abort\n");
  abort();
}
