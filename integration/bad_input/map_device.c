// Maps the device named by argv[1] (MAP_SHARED, one page, read-only) and
// prints its first byte: backstep must refuse to record such a mapping,
// naming the device. Exits 3 when the device cannot be mapped natively.
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  int fd = open(argv[1], O_RDONLY);
  if (fd < 0) return 3;
  volatile unsigned char* p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return 3;
  printf("mapped %s\n", argv[1]);
  return 0;
}
