// scenario: the program break moved directly with sbrk/brk: grow, write,
// shrink, grow again (the old contents of re-grown memory are zero).
#include "scenario.h"

#include <sys/syscall.h>

int main(void) {
  // The first printf allocates stdout's buffer with malloc: do it before
  // taking over the top of the heap.
  printf("moving the break by hand\n");
  char* start = sbrk(0);
  nd("initial break %p\n", (void*)start);
  char* p = sbrk(1 << 20);
  CHECK(p != (void*)-1);
  CHECK(p == start);
  memset(p, 0x5a, 1 << 20);
  printf("grew by 1 MiB, break moved: %s\n", (char*)sbrk(0) == start + (1 << 20) ? "yes" : "no");
  unsigned long sum = 0;
  for (int i = 0; i < (1 << 20); i += 4096) sum += (unsigned char)p[i];
  printf("sum %lu\n", sum);
  CHECK(sbrk(-(1 << 19)) != (void*)-1);
  printf("shrunk by 512 KiB: %s\n", (char*)sbrk(0) == start + (1 << 19) ? "yes" : "no");
  CHECK(sbrk(1 << 19) != (void*)-1);
  printf("regrown page reads %d (first half kept %d)\n", p[(1 << 19) + 4096], p[100]);
  long raw = syscall(SYS_brk, 0);
  printf("raw brk(0) equals sbrk(0): %s\n", (char*)raw == (char*)sbrk(0) ? "yes" : "no");
  CHECK(brk(start) == 0);
  printf("back to the start: %s\n", (char*)sbrk(0) == start ? "yes" : "no");
  return 0;
}
