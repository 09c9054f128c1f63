// scenario: read and access watchpoints (rwatch, awatch), forwards and backwards
// scenario: (with debug registers, or by decoding each step where they never fire)
#include <stdio.h>

static int shared = 5;
static int sink;

static void reader(void) {
  sink += shared;
}

static void writer(int v) {
  shared = v;
}

int main(void) {
  reader();
  writer(8);
  reader();
  printf("sink=%d\n", sink);
  return 0;
}

// With debug registers the reads are their hits; where they never fire,
// backstep single-steps and decodes each instruction to see them (rwatch_soft
// is the longer test of that).
