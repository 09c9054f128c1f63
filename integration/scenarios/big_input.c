// scenario: read a 3 MB input file in chunks of odd sizes and print a
// checksum; then pread at offsets chosen by getrandom.
// input-random: big.bin 3145728
#include "scenario.h"

#include <fcntl.h>
#include <sys/random.h>

int main(void) {
  static char buf[1 << 20];
  const size_t sizes[] = {1, 7, 4096, 65536, 1 << 20, 333, 12345};
  int fd = SYS(open("big.bin", O_RDONLY));
  uint64_t h = FNV_INIT;
  size_t total = 0;
  for (int i = 0;; i++) {
    ssize_t n = SYS(read(fd, buf, sizes[i % 7]));
    if (n == 0) break;
    h = fnv1a(buf, n, h);
    total += n;
  }
  printf("bytes %zu fnv1a %016llx\n", total, (unsigned long long)h);

  uint32_t offsets[16];
  CHECK(getrandom(offsets, sizeof offsets, 0) == sizeof offsets);
  uint64_t h2 = FNV_INIT;
  for (int i = 0; i < 16; i++) {
    off_t off = offsets[i] % total;
    ssize_t n = SYS(pread(fd, buf, 4096, off));
    CHECK(n > 0);
    h2 = fnv1a(buf, n, h2);
    nd("pread at %ld: %zd bytes, first %02x\n", (long)off, n, (unsigned char)buf[0]);
  }
  nd("random preads fnv1a %016llx\n", (unsigned long long)h2);
  SYS(close(fd));
  return 0;
}
