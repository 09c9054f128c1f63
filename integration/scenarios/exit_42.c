// scenario: _exit(42) skips atexit handlers and does not flush stdio: the
// unflushed text must not appear in the recording or the replay.
// expect-exit: 42
#include "scenario.h"

static void never(void) { printf("atexit handler ran (it must not)\n"); }

int main(void) {
  atexit(never);
  printf("flushed line\n");
  fflush(stdout);
  printf("this buffered text is lost by _exit");
  _exit(42);
}
