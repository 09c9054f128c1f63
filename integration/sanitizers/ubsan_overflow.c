// scenario: an UndefinedBehaviorSanitizer build: a signed overflow and a
// shift past the width are reported on stderr and the program goes on (the
// default, recoverable); recorded and replayed alike. The reports name
// the source line only, so stderr is compared with the native run's.
#include <limits.h>
#include <stdio.h>

__attribute__((noinline)) static int add(int a, int b) { return a + b; }
__attribute__((noinline)) static int shift(int a, int b) { return a << b; }

int main(int argc, char** argv) {
  (void)argv;
  volatile int big = INT_MAX;
  int sum = add(big, argc);
  int shifted = shift(argc, 31 + argc);
  printf("sum %d, shifted %d\n", sum, shifted);
  return 0;
}
