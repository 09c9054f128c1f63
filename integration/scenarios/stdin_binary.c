// scenario: 300000 binary bytes on stdin read with read(2) in odd chunk sizes;
// the pipe delivers them in pieces whose sizes vary, the checksum does not.
// stdin-random: 300000
#include "scenario.h"

int main(void) {
  static char buf[70000];
  const size_t sizes[] = {1, 4095, 65536, 777, 70000};
  uint64_t h = FNV_INIT;
  size_t total = 0;
  int reads = 0;
  for (int i = 0;; i++) {
    ssize_t n = SYS(read(0, buf, sizes[i % 5]));
    if (n == 0) break;
    reads++;
    h = fnv1a(buf, n, h);
    total += n;
  }
  printf("stdin bytes %zu fnv1a %016llx\n", total, (unsigned long long)h);
  nd("reads %d\n", reads);
  return 0;
}
