// scenario: `monitor when` reports the position, forwards and backwards
#include <stdio.h>
#include <unistd.h>

static int steps;

static void tick(void) {
  steps++;
  getpid();
}

int main(void) {
  tick();
  tick();
  tick();
  printf("steps=%d\n", steps);
  return 0;
}
