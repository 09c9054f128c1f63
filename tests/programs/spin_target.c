// Driven by tests/trajectory_test.cc: long stretches without system calls
// between two writes. spin() is a one-line loop over stack variables (what
// gdb's reverse-next steps back through one instruction at a time); then
// calls that write globals and change SSE registers (so that the XSAVE
// area differs from one position to the next); done() marks the end.
#include <unistd.h>

#define SPIN 400
#define MIXES 60

long data[16];
double ratio;
volatile long sink;

__attribute__((noinline)) long spin(long n) {
  long s = 0, i;
  for (i = 0; i < n; i++) s += (i * i) ^ (s >> 3);
  return s;
}

__attribute__((noinline)) long mix(long x, double* f) {
  *f = *f * 0.5 + (double)x;
  return (x * 2654435761L) ^ (x >> 7);
}

__attribute__((noinline)) void done(long s) { sink = s; }

int main(void) {
  if (write(1, "a", 1) != 1) return 1;
  long s = spin(SPIN);
  double f = 1.0;
  for (long i = 0; i < MIXES; i++) data[i % 16] += mix(s + i, &f);
  ratio = f;
  done(s);
  if (write(1, "b", 1) != 1) return 1;
  return (int)(s & 63);
}
