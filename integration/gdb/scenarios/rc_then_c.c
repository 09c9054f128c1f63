// scenario: reverse-continue then continue arrives at the same instruction
// scenario: with the same values as the first time
#include <stdio.h>

static unsigned long long state = 12345;

static unsigned long long next_random(void) {
  state = state * 6364136223846793005ull + 1442695040888963407ull;
  return state >> 33;
}

int main(void) {
  unsigned long long acc = 0;
  for (int round = 0; round < 6; round++) {
    unsigned long long r = next_random();
    acc ^= r;
  }
  printf("acc=%llu\n", acc);
  return 0;
}
