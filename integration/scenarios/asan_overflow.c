// scenario: an AddressSanitizer build (shared runtime) that reads past the
// end of a heap block: ASan reports the heap-buffer-overflow on stderr and
// the program exits 1, recorded and replayed alike (the report's addresses
// and pid vary from run to run: stderr is not compared with the native
// run's, and replay must reproduce the recorded one byte for byte).
// expect-exit: 1
// stderr: any
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) int read_at(const int* p, int i) { return p[i]; }

int main(void) {
  int* block = malloc(8 * sizeof(int));
  for (int i = 0; i < 8; i++) block[i] = i;
  printf("in bounds %d\n", read_at(block, 7));
  fflush(stdout);
  printf("past the end %d\n", read_at(block, 8));
  free(block);
  return 0;
}
