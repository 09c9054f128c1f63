// scenario: gdb's `find` over a range with an unmapped hole and a PROT_NONE
// page in it (qSearch:memory): backstep searches the mapped parts, so the
// pattern past the hole is found, where gdb reading the range itself stops
// at the hole. Going back to before the write, the pattern is not there.
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define PAGE 4096

int main(void) {
  char* base = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED) return 1;
  munmap(base + PAGE, PAGE);
  strcpy(base + 2 * PAGE + 8, "needle");
  mprotect(base + 2 * PAGE, PAGE, PROT_NONE);
  printf("hidden at offset %d\n", 2 * PAGE + 8);
  return 0;
}
