// scenario: what a replay refuses, and that the session goes on after each:
// scenario: register writes (a diversion, dropped at the next resume), a breakpoint where
// scenario: nothing is mapped, `run cN` for a checkpoint that does not exist
#include <stdio.h>

static int total;

static int add(int v) {
  total += v;
  return total;
}

int main(void) {
  for (int i = 1; i <= 3; i++) add(i);
  printf("total=%d\n", total);
  return 0;
}
