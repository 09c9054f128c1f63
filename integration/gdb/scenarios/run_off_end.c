// scenario: continue past the end of the recording, go back, come forward
// scenario: again and see the exit
// expect-exit: 7
#include <stdio.h>

static int finish_up(int code) {
  printf("finishing with %d\n", code);
  return code;
}

int main(void) {
  int code = finish_up(7);
  return code;
}
