// Driven by tests/timeline_test.cc: a loop that calls bump() ten times,
// with system calls (events) in between, and a global to watch.
#include <unistd.h>

int counter = 0;
int values[16];

__attribute__((noinline)) void bump(int i) {
  counter += i;
  values[i % 16] = counter;
}

int main(void) {
  for (int i = 1; i <= 10; i++) {
    bump(i);
    if (i % 3 == 0) {
      char c = (char)('0' + i % 10);
      if (write(1, &c, 1) != 1) return 1;
    }
  }
  if (write(1, "\n", 1) != 1) return 1;
  return counter % 256;
}
