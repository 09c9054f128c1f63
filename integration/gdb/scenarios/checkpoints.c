// scenario: checkpoints made with `monitor checkpoint`, listed, restarted
// scenario: and deleted
#include <stdio.h>

static int progress;

static void stage(int n) {
  progress = progress * 10 + n;
}

int main(void) {
  stage(1);
  stage(2);
  stage(3);
  stage(4);
  printf("progress=%d\n", progress);
  return 0;
}
