// scenario: one reverse-stepi from a fatal SIGSEGV goes to the instruction
// scenario: before the fault; $_siginfo describes the stop at hand
// expect-exit: 139
#include <stddef.h>

int* volatile target;
int value;

int main(void) {
  value = 3;
  value = value + 4;
  *target = value;
  return 0;
}
