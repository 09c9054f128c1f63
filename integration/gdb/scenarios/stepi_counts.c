// scenario: N stepi then N reverse-stepi come back to the same instruction
// scenario: with the same registers
#include <stdio.h>

static unsigned mix(unsigned h, unsigned v) {
  h ^= v;
  h *= 16777619u;
  return h;
}

int main(void) {
  unsigned h = 2166136261u;
  for (unsigned i = 0; i < 8; i++) h = mix(h, i);
  printf("h=%08x\n", h);
  return 0;
}
