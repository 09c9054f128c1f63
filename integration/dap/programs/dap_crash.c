// A program for the DAP tests (session_crash_test.js): a list whose last
// link points at an address nothing is mapped at; summing it crashes.
// The comments `LINE name` mark the lines the test expects by name.
// expect-exit: 139
#include <stdio.h>

struct node {
  int value;
  struct node *next;
};

static int sum(struct node *n) {
  int total = 0;
  while (n) {              // LINE walk
    total += n->value;     // LINE crash
    n = n->next;           // LINE advance
  }
  return total;
}

int main(void) {
  struct node c = {3, (struct node *)0x10}, b = {2, &c}, a = {1, &b};
  printf("summing\n");
  fflush(stdout);
  return sum(&a);  // LINE call
}
