// Driven by tests/approach_test.cc: a stretch of ~3 million instructions
// without a system call between a write and the call of after(), so that
// a reverse-stepi from after() approaches the end of the loop at the
// program's own speed (engine/timeline/timeline_approach.cc). The label
// stretch_pass marks one place in the loop body, where the test puts a
// breakpoint to find the last pass exactly by other means; tick() runs
// every 65536 passes, a breakpoint with few hits to reverse-continue to.
// An argument sets the passes instead (a longer stretch).
#include <stdlib.h>
#include <unistd.h>

volatile long passes = 400000;
long total;

__attribute__((noinline)) void after(long s) { total = s; }
__attribute__((noinline)) void tick(long i) { total = i; }

__attribute__((noinline)) long stretch(long n) {
  long s = 0, i;
  for (i = 0; i < n; i++) {
    __asm__ volatile(".globl stretch_pass\nstretch_pass:" ::: "memory");
    s += i ^ (s >> 1);
    if ((i & 0xffff) == 0) tick(i);
  }
  return s;
}

int main(int argc, char** argv) {
  if (argc > 1) passes = atol(argv[1]);  /* a longer stretch */
  if (write(1, "s", 1) != 1) return 1;
  after(stretch(passes));
  return write(1, "\n", 1) == 1 ? 0 : 1;
}
