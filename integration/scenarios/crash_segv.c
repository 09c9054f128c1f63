// scenario: the program dies of SIGSEGV (a write through a null pointer)
// after some output; the recorder exits with 128 + 11.
// expect-exit: 139
#include "scenario.h"

#include <sys/resource.h>

int main(void) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  printf("about to write through a null pointer\n");
  fflush(stdout);
  fprintf(stderr, "stderr before the crash\n");
  volatile int* p = NULL;
  *p = 42;
  printf("survived?\n");
  return 0;
}
