// scenario: exit(3) runs atexit handlers (in reverse order) and flushes
// stdio.
// expect-exit: 3
#include "scenario.h"

static void first(void) { printf("atexit handler registered first\n"); }
static void second(void) { printf("atexit handler registered second\n"); }

int main(void) {
  atexit(first);
  atexit(second);
  printf("calling exit(3)");
  exit(3);
}
