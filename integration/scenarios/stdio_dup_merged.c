// scenario: stdout and stderr are one pipe; output through fds 1 and 2 and
// through copies of them (dup, dup2, /dev/stderr opened anew) interleaves,
// and replay re-emits it in the same order.
// output: merged
#include "scenario.h"

#include <fcntl.h>

static void say(int fd, const char* s) { CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s)); }

int main(void) {
  int out = SYS(dup(1)), err = SYS(dup(2));
  SYS(dup2(2, 7));
  int dev_err = SYS(open("/dev/stderr", O_WRONLY | O_APPEND));
  for (int i = 0; i < 3; i++) {
    say(1, "1: fd 1\n");
    say(err, "2: dup(2)\n");
    say(out, "3: dup(1)\n");
    say(7, "4: dup2(2, 7)\n");
    say(dev_err, "5: /dev/stderr\n");
    say(2, "6: fd 2\n");
  }
  return 0;
}
