// scenario: a watchpoint on a buffer that read() fills from a file: the
// scenario: kernel's write is reported going forwards and backwards
// input: data.txt = hello, backstep\n
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

static char buf[64];

int main(void) {
  int fd = open("data.txt", O_RDONLY);
  if (fd < 0) return 2;
  ssize_t n = read(fd, buf, sizeof(buf) - 1);
  close(fd);
  int vowels = 0;
  for (ssize_t i = 0; i < n; i++) {
    char c = buf[i];
    if (c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u') vowels++;
  }
  printf("read %zd bytes, %d vowels\n", n, vowels);
  return 0;
}
