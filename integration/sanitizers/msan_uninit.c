// scenario: a MemorySanitizer build (clang only) that branches on memory
// it never initialised: MSan reports a use-of-uninitialized-value and
// exits with the code MSAN_OPTIONS gives; replay reproduces the report.
// MSan's shadow takes most of the address space as reserved mappings,
// which the recording's layout must keep. Addresses vary: stderr is not
// compared with the native run's.
// env: MSAN_OPTIONS=exitcode=3
// expect-exit: 3
// stderr: any
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int pick(const int* values, int n) {
  int sum = 0;
  for (int i = 0; i < n; i++) sum += values[i];
  return sum;
}

int main(void) {
  int* values = malloc(8 * sizeof(int));
  for (int i = 0; i < 7; i++) values[i] = i;  // values[7] never written
  printf("before the check\n");
  fflush(stdout);
  if (pick(values, 8) > 20) printf("large\n");
  printf("not reached\n");
  free(values);
  return 0;
}
