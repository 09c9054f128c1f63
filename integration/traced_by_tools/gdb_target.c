// What gdb debugs in run_traced_by_tool.py --tool gdb while backstep
// records gdb itself: a loop that calls a function whose argument and
// global the session prints and changes.
#include <stdio.h>
int counter;
int step(int x) { counter += x; return counter * 2; }
int main(void) {
  int total = 0;
  for (int i = 0; i < 5; ++i) total += step(i);
  printf("total %d counter %d\n", total, counter);
  return total % 7;
}
