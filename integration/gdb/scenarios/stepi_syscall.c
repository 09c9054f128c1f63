// scenario: stepi over a system call instruction, forwards and backwards:
// scenario: its result and the memory it wrote appear and disappear
// input: data.txt = 0123456789abcdef
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static char buf[32];

int main(void) {
  int fd = open("data.txt", O_RDONLY);
  if (fd < 0) return 2;
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  printf("%zd: %s\n", n, buf);
  return 0;
}
