// scenario: read and access watchpoints (rwatch, awatch), forwards and backwards
// requires: debug-registers
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

// Reads are seen only by the debug registers: where they never fire, backstep
// watches by single steps and sees only writes that change the value.
#include "debug_registers_probe.h"
