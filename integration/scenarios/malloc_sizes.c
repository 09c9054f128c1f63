// scenario: malloc small (brk heap) and big (mmap) blocks, calloc, realloc
// growth (mremap inside glibc), free; contents are checked, addresses vary.
#include "scenario.h"

#include <malloc.h>

int main(void) {
  uint64_t s = 12345;
  char* small[1000];
  for (int i = 0; i < 1000; i++) {
    size_t size = 16 + xorshift(&s) % 500;
    small[i] = malloc(size);
    CHECK(small[i] != NULL);
    memset(small[i], i & 0xff, size);
    small[i][0] = (char)size;
  }
  nd("small blocks from %p to %p, sbrk(0) %p\n", (void*)small[0], (void*)small[999], sbrk(0));
  unsigned long sum = 0;
  for (int i = 0; i < 1000; i += 2) {
    sum += (unsigned char)small[i][1];
    free(small[i]);
  }
  printf("small blocks checksum %lu\n", sum);

  size_t big_sizes[] = {200 << 10, 1 << 20, 8 << 20, 33 << 20};
  for (int i = 0; i < 4; i++) {
    unsigned char* p = malloc(big_sizes[i]);
    CHECK(p != NULL);
    for (size_t j = 0; j < big_sizes[i]; j += 4096) p[j] = (unsigned char)(j >> 12);
    unsigned long t = 0;
    for (size_t j = 0; j < big_sizes[i]; j += 4096) t += p[j];
    printf("big block %zu: page sum %lu\n", big_sizes[i], t);
    nd("big block at %p\n", (void*)p);
    free(p);
  }

  unsigned char* z = calloc(3 << 20, 1);
  CHECK(z != NULL);
  int nonzero = 0;
  for (size_t j = 0; j < (3u << 20); j += 777) nonzero += z[j] != 0;
  printf("calloc nonzero bytes sampled: %d\n", nonzero);
  free(z);

  char* r = malloc(100);
  CHECK(r != NULL);
  strcpy(r, "keep me");
  for (size_t size = 1000; size <= (64u << 20); size *= 4) {
    r = realloc(r, size);
    CHECK(r != NULL);
    r[size - 1] = 'x';
  }
  printf("after realloc growth: %s\n", r);
  free(r);
  for (int i = 1; i < 1000; i += 2) free(small[i]);
  struct mallinfo2 mi = mallinfo2();
  nd("arena %zu hblks %zu\n", mi.arena, mi.hblks);
  printf("malloc_trim: %d\n", malloc_trim(0) >= 0);
  return 0;
}
