// scenario: a watchpoint on a buffer that buffered pread() calls fill: the
// preload library copies the recorded bytes into the program in replay, and
// the stop shows where the kernel's write would be, after the call going
// forwards and before it going backwards, with the old and new values.
// input: data.txt = abcdefghijklmnop
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static char buf[16];

int main(void) {
  int fd = open("data.txt", O_RDONLY);
  if (fd < 0) return 2;
  int total = 0;
  for (int i = 0; i < 4; i++) {
    if (pread(fd, buf, 4, i * 4) != 4) return 3;
    total += buf[0];
  }
  printf("%d\n", total);
  return 0;
}
