// scenario: `run` restarts the replay from the beginning of the recording
#include <stdio.h>

static int calls;

static int bump(int x) {
  calls++;
  return x + calls;
}

int main(void) {
  int v = 0;
  for (int i = 0; i < 3; i++) v = bump(v);
  printf("v=%d calls=%d\n", v, calls);
  return 0;
}
