// scenario: every command works from the start of the recording. After a
// reverse-continue back to the first instruction, no library but the
// dynamic loader is mapped, yet gdb keeps its breakpoints in libc (it never
// hears of libraries going away): they are taken, and hit once libc is
// mapped and runs there; `next` and `continue` work as from a fresh start.
#include <stdio.h>

int main(void) {
  puts("one");
  int sum = 0;
  for (int i = 0; i < 3; i++) sum += i;
  puts("two");
  return sum == 3 ? 0 : 1;
}
