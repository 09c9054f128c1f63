// scenario: a watchpoint reports every change with old and new values,
// scenario: forwards, and mirrored going backwards
#include <stdio.h>

static int level;

int main(void) {
  for (int i = 1; i <= 4; i++) {
    level = level * 2 + i;
  }
  printf("level=%d\n", level);
  return 0;
}
