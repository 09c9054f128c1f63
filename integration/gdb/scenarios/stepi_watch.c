// scenario: stepi and reverse-stepi over an instruction that writes a
// scenario: watched variable report the watchpoint with old and new values
#include <stdio.h>

int level;

int main(void) {
  level = 7;
  level = level * 3;
  printf("level=%d\n", level);
  return 0;
}
