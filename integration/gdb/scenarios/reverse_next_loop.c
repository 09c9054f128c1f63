// scenario: reverse-next walks back through a loop one line at a time,
// scenario: stepping over the function it calls
#include <stdio.h>

static int weight(int i) {
  return i * 3 + 1;
}

int main(void) {
  int total = 0;
  int i;
  for (i = 0; i < 4; i++) {
    total += weight(i);
  }
  printf("total=%d\n", total);
  return 0;
}
