// scenario: a MAP_PRIVATE mapping larger than its file, which the program
// grows page by page with ftruncate, storing into each new page; a
// checkpoint keeps the file's size and the mapping's private pages of its
// own moment.
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void) {
  int fd = open("grow.bin", O_CREAT | O_RDWR | O_TRUNC, 0600);
  if (fd < 0 || ftruncate(fd, 4096) != 0) return 1;
  volatile char* p = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return 1;
  p[0] = 1;
  for (int i = 1; i <= 3; i++) {
    if (ftruncate(fd, (i + 1) * 4096) != 0) return 1;
    p[i * 4096] = (char)(i + 10);
    printf("%d %d\n", p[0], p[i * 4096]);
  }
  unlink("grow.bin");
  return 0;
}
