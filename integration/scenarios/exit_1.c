// scenario: exit status 1 by returning from main, with output on both
// streams.
// expect-exit: 1
#include "scenario.h"

int main(void) {
  printf("returning 1 from main\n");
  fprintf(stderr, "error: something failed (on purpose)\n");
  return 1;
}
