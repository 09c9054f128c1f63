// scenario: random bytes from /dev/urandom and /dev/random, printed, and a
// loop whose length depends on them.
#include "scenario.h"

#include <fcntl.h>

int main(void) {
  unsigned char buf[64];
  int fd = SYS(open("/dev/urandom", O_RDONLY));
  CHECK(SYS(read(fd, buf, 32)) == 32);
  nd_hex("urandom 32", buf, 32);
  CHECK(SYS(read(fd, buf, 1)) == 1);
  unsigned rounds = buf[0];
  unsigned long acc = 0;
  for (unsigned i = 0; i < rounds; i++) {
    CHECK(SYS(read(fd, buf, 8)) == 8);
    acc += buf[i % 8];
  }
  nd("rounds %u acc %lu\n", rounds, acc);
  SYS(close(fd));
  FILE* f = fopen("/dev/random", "rb");
  CHECK(f != NULL);
  CHECK(fread(buf, 1, 16, f) == 16);
  fclose(f);
  nd_hex("random 16", buf, 16);
  printf("done\n");
  return 0;
}
