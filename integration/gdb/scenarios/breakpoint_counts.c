// scenario: breakpoint hit counts as gdb counts them while going backwards
// scenario: and forwards, with a condition
#include <stdio.h>

static int seen;

static void visit(int n) {
  seen += n;
}

int main(void) {
  for (int n = 1; n <= 6; n++) visit(n);
  printf("seen=%d\n", seen);
  return 0;
}
