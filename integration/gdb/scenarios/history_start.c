// scenario: reverse-continue runs back to the very start of the recording
#include <stdio.h>
#include <unistd.h>

static int counter;

int main(void) {
  counter = 41;
  write(1, "start\n", 6);
  counter++;
  printf("counter=%d\n", counter);
  return 0;
}
