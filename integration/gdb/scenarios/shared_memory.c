// scenario: shared anonymous memory and two MAP_SHARED mappings of one file,
// scenario: stored to between system calls; a checkpoint keeps its own copy
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void) {
  volatile int* anon = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  int fd = open("shared.bin", O_CREAT | O_RDWR | O_TRUNC, 0600);
  if (anon == MAP_FAILED || fd < 0 || ftruncate(fd, 4096) != 0) return 1;
  volatile int* a = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  volatile int* b = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  if (a == MAP_FAILED || b == MAP_FAILED) return 1;
  for (int i = 1; i <= 5; i++) {
    anon[0] = i * 10;
    a[1] = i * 100;
    getppid();
    printf("%d %d %d\n", anon[0], b[1], a[1]);
  }
  unlink("shared.bin");
  return 0;
}
