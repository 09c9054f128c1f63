// scenario: watchpoints on ranges that are not aligned to their length (an
// scenario: int at an odd address, an 8-byte value aligned to 4 only) stop at
// scenario: every write both ways; more than the debug registers hold is refused
#include <stdio.h>

struct __attribute__((packed, aligned(8))) odd_pair {
  char tag;
  int count;  // at an odd address
};

struct __attribute__((packed, aligned(8))) wide_after_int {
  int pad;
  long long wide;  // aligned to 4, not 8
};

struct odd_pair o;
struct wide_after_int w;

int main(void) {
  for (int i = 1; i <= 3; i++) {
    o.tag = (char)('a' + i);
    o.count += i;
    w.pad = i;
    w.wide = w.wide * 1000 + i;
  }
  printf("count=%d wide=%lld\n", o.count, w.wide);
  return 0;
}
// The run takes about 50 s alone (watchpoints emulated by single steps,
// both ways): the default 100 s was too close under ctest -j2 load.
// timeout: 300
