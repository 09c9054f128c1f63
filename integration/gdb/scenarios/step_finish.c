// scenario: reverse-step into a function that has returned, then
// scenario: reverse-finish back out to its call
#include <stdio.h>

static int square(int x) {
  int r = x * x;
  return r;
}

static int add_one(int v) {
  return v + 1;
}

int main(void) {
  int a = 3;
  int b = square(a);
  int c = add_one(b);
  printf("c=%d\n", c);
  return 0;
}
