// scenario: a recursive function: the backtrace grows and shrinks as the
// scenario: replay goes forwards and backwards
#include <stdio.h>

static int fact(int n) {
  if (n <= 1)
    return 1;
  return n * fact(n - 1);
}

int main(void) {
  int r = fact(5);
  printf("5! = %d\n", r);
  return 0;
}
