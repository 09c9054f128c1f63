// scenario: the program behind the gdb/MI test (run_gdb_mi.py) and the
// scenario: malformed-packet test (run_malformed_packets.py); the MI test
// scenario: checks line numbers in this file
#include <stdio.h>

static int total;

static int scale(int v) {
  int r = v * 3;
  return r;
}

static void accumulate(int v) {
  total += scale(v);
}

int main(void) {
  for (int i = 1; i <= 3; i++) {
    accumulate(i);
  }
  printf("total=%d\n", total);
  return 0;
}
