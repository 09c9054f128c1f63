// scenario: gdb calls functions of the program during replay (a diversion):
// scenario: results at a breakpoint forwards and after reverse-continue, a
// scenario: call that changes a global (the recording shows again after it),
// scenario: one that writes to stdout, one that crashes, a string argument,
// scenario: a double, a breakpoint condition that calls a function; spin()
// scenario: never returns (run_diversion_interrupt.py interrupts it)
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int counter = 100;
static char label[16] = "recorded";

int twice(int x) { return 2 * x; }
int bump(int by) {
  counter += by;
  return counter;
}
int crash(int* p) { return *p; }
int say(const char* s) { return (int)write(1, s, strlen(s)); }
double half(double v) { return v / 2; }
int length(const char* s) { return (int)strlen(s); }

void visit(int i) {
  counter += i;
}

int main(void) {
  for (int i = 0; i < 6; i++) visit(i);
  printf("counter=%d %s\n", counter, label);
  return 0;
}

int spin(void) {
  volatile unsigned long n = 0;
  for (;;) n++;
  return (int)n;
}
