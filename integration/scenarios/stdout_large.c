// scenario: 1 MiB and more on stdout: fully buffered lines, one big write(2)
// of 512 KiB, and a final line carrying the time; stdout is a pipe, so
// writes may be partial and the driver reads everything.
#include "scenario.h"

#include <time.h>

int main(void) {
  uint64_t h = FNV_INIT;
  char line[128];
  size_t total = 0;
  for (int i = 0; i < 16384; i++) {
    int n = snprintf(line, sizeof line, "line %05d: the quick brown fox jumps over the lazy dog\n", i);
    fputs(line, stdout);
    h = fnv1a(line, n, h);
    total += n;
  }
  fflush(stdout);
  static char big[512 * 1024];
  for (size_t i = 0; i < sizeof big; i++) big[i] = (i % 64 == 63) ? '\n' : (char)('A' + i % 26);
  size_t off = 0;
  while (off < sizeof big) off += SYS(write(1, big + off, sizeof big - off));
  h = fnv1a(big, sizeof big, h);
  total += sizeof big;
  printf("total %zu bytes fnv1a %016llx\n", total, (unsigned long long)h);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  nd("finished at %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
  return 0;
}
