// scenario: reverse-next over a 10,000-iteration one-line loop (gdb sends
// scenario: one reverse step per instruction, ~100,000 of them), from a
// scenario: breakpoint after it and again after a forward `next` over it;
// scenario: reverse-stepi into the end of that long stretch without system
// scenario: calls, and the loop variable at each place
// timeout: 900
#include <stdio.h>
#include <unistd.h>

int main(void) {
  long n = 10000, s = 0, i = -1;
  getppid();
  for (i = 0; i < n; i++) s += (i * i) ^ (s >> 3);
  printf("s=%ld i=%ld\n", s, i);
  return 0;
}
