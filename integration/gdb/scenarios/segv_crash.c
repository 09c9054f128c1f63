// scenario: a crash by SIGSEGV; reverse execution goes back out of the
// scenario: crash to the line that made the bad pointer
// expect-exit: 139
#include <stddef.h>
#include <stdio.h>

static int slots[3];

static int* pick_slot(int k) {
  if (k < 3)
    return &slots[k];
  return NULL;
}

static void store(int* p, int v) {
  *p = v;
}

int main(void) {
  for (int k = 1; k <= 3; k++) {
    int* p = pick_slot(k);
    store(p, k * 10);
  }
  printf("not reached\n");
  return 0;
}
