// scenario: reverse-continue to a conditional breakpoint whose condition is
// scenario: false 4,982 times on the way (gdb stops at each hit, evaluates,
// scenario: resumes backwards), in a loop without system calls
// timeout: 600
#include <stdio.h>

static volatile long total;

__attribute__((noinline)) static void tick(long i) {
  total += i;
}

int main(void) {
  total = 7;
  for (long i = 0; i < 5000; i++) tick(i);
  printf("total=%ld\n", total);
  return 0;
}
