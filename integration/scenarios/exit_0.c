// scenario: exit status 0 through the raw exit_group system call, after
// output flushed by hand (exit_group does not flush stdio).
#include "scenario.h"

#include <sys/syscall.h>

int main(void) {
  printf("leaving with exit_group(0)\n");
  fflush(stdout);
  syscall(SYS_exit_group, 0);
  return 99;
}
