// scenario: gdb's own `checkpoint` command forks the program with an
// inferior call, which a replay cannot do: the call is refused, and backstep
// says to use `monitor checkpoint` (and `run cN`) instead, which works.
#include <stdio.h>

int main(void) {
  int total = 0;
  for (int i = 1; i <= 4; i++) total += i;
  printf("total %d\n", total);
  return 0;
}
