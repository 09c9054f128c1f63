// scenario: getrandom with each flag, arc4random, and control flow decided by
// random numbers (the number and size of allocations and syscalls).
#include "scenario.h"

#include <sys/random.h>
#include <sys/syscall.h>

int main(void) {
  unsigned char buf[256];
  CHECK(getrandom(buf, 32, 0) == 32);
  nd_hex("getrandom", buf, 32);
  CHECK(getrandom(buf, 16, GRND_NONBLOCK) == 16);
  nd_hex("getrandom nonblock", buf, 16);
  CHECK(getrandom(buf, 16, GRND_RANDOM) == 16);
  nd_hex("getrandom random", buf, 16);
  CHECK(syscall(SYS_getrandom, buf, 256, 0) == 256);
  nd_hex("raw getrandom (first 16 of 256)", buf, 16);
  errno = 0;
  CHECK(getrandom(buf, 16, 0x4000) == -1);
  printf("getrandom bad flags: %s\n", errname(errno));
  nd("arc4random %08x %08x\n", arc4random(), arc4random_uniform(1000));

  unsigned n = buf[0] % 40 + 1;
  unsigned long sum = 0;
  for (unsigned i = 0; i < n; i++) {
    size_t size = (size_t)buf[i + 1] * 512 + 1;
    char* p = malloc(size);
    CHECK(p != NULL);
    memset(p, (int)i, size);
    sum += (unsigned char)p[size - 1] + size;
    if (buf[i + 2] & 1) getppid();
    free(p);
  }
  nd("random allocations %u sum %lu\n", n, sum);
  printf("done\n");
  return 0;
}
