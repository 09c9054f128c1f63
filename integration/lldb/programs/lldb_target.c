// scenario: the program behind the lldb tests (run_lldb_session.py); they
// scenario: check line numbers in this file. total = 3 + 6 + 9, written
// scenario: out by report() with write(2) itself, so that a breakpoint on
// scenario: libc's write stops under report() and main (printf to a pipe
// scenario: would only write at exit).
#include <unistd.h>

static int total;

static int scale(int v) {
  int r = v * 3;
  return r;
}

static void accumulate(int v) {
  total += scale(v);
}

static void report(void) {
  char line[] = "total=..\n";
  line[6] = (char)('0' + total / 10);
  line[7] = (char)('0' + total % 10);
  write(1, line, sizeof line - 1);
}

int main(void) {
  for (int i = 1; i <= 3; i++) {
    accumulate(i);
  }
  report();
  return 0;
}
