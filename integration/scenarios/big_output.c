// scenario: write a 4 MB file of data seeded by getrandom, read it back in
// other chunk sizes and compare.
#include "scenario.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>

#define SIZE (4 << 20)

int main(void) {
  uint64_t seed;
  CHECK(getrandom(&seed, sizeof seed, 0) == sizeof seed);
  seed |= 1;
  nd("seed %016llx\n", (unsigned long long)seed);
  char* data = malloc(SIZE);
  CHECK(data != NULL);
  uint64_t s = seed;
  for (size_t i = 0; i < SIZE; i += 8) {
    uint64_t v = xorshift(&s);
    memcpy(data + i, &v, 8);
  }
  int fd = SYS(open("out.bin", O_CREAT | O_WRONLY | O_TRUNC, 0644));
  for (size_t off = 0; off < SIZE;) {
    size_t chunk = 100000;
    if (chunk > SIZE - off) chunk = SIZE - off;
    off += SYS(write(fd, data + off, chunk));
  }
  SYS(fsync(fd));
  SYS(close(fd));
  struct stat st;
  SYS(stat("out.bin", &st));
  printf("file size %ld\n", (long)st.st_size);

  char* back = malloc(SIZE);
  CHECK(back != NULL);
  fd = SYS(open("out.bin", O_RDONLY));
  size_t got = 0;
  for (;;) {
    ssize_t n = SYS(read(fd, back + got, got + 65536 <= SIZE ? 65536 : SIZE - got));
    if (n == 0) break;
    got += n;
  }
  SYS(close(fd));
  printf("read back %zu bytes, equal: %s\n", got, memcmp(data, back, SIZE) == 0 ? "yes" : "no");
  nd("fnv1a %016llx\n", (unsigned long long)fnv1a(back, SIZE, FNV_INIT));
  SYS(unlink("out.bin"));
  return 0;
}
