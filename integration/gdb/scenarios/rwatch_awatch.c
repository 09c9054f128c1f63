// scenario: read and access watchpoints (rwatch, awatch), forwards and backwards
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
