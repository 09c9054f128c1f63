/* mmap-heavy: map anonymous regions of varying size, touch every page,
 * mprotect part of each read-only, grow it with mremap (which may move it),
 * touch the new pages, then unmap. Sizes come from a fixed LCG, so every run
 * does the same work.
 * Usage: mmap_churn [ROUNDS]   (default 2000)
 * Prints one line with a checksum of values read back from the regions. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL

static uint64_t lcg_state = 12345;
static uint64_t lcg(void) {
  lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
  return lcg_state >> 33;
}

static void touch(unsigned char *p, size_t from, size_t to, unsigned char v) {
  for (size_t off = from; off < to; off += PAGE) p[off] = (unsigned char)(v + off / PAGE);
}

int main(int argc, char **argv) {
  unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 2000UL;
  uint64_t sum = 0;
  for (unsigned long r = 0; r < rounds; ++r) {
    size_t pages = 1 + lcg() % 512;             /* 4 KiB .. 2 MiB */
    size_t len = pages * PAGE;
    unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { perror("mmap"); return 1; }
    touch(p, 0, len, (unsigned char)r);
    /* Make the first half read-only, read it, then make it writable again. */
    size_t half = (pages / 2) * PAGE;
    if (half) {
      if (mprotect(p, half, PROT_READ) != 0) { perror("mprotect"); return 1; }
      for (size_t off = 0; off < half; off += PAGE) sum += p[off];
      if (mprotect(p, half, PROT_READ | PROT_WRITE) != 0) { perror("mprotect"); return 1; }
    }
    /* Grow by 1..256 pages; the kernel may move it. */
    size_t new_len = len + (1 + lcg() % 256) * PAGE;
    unsigned char *q = mremap(p, len, new_len, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) { perror("mremap"); return 1; }
    touch(q, len, new_len, (unsigned char)(r * 7));
    for (size_t off = 0; off < new_len; off += 16 * PAGE) sum += q[off];
    /* Shrink it in place, then unmap. */
    unsigned char *s = mremap(q, new_len, len / 2 + PAGE, 0);
    if (s == MAP_FAILED) { perror("mremap shrink"); return 1; }
    if (munmap(s, len / 2 + PAGE) != 0) { perror("munmap"); return 1; }
  }
  printf("mmap_churn rounds=%lu sum=%llu\n", rounds, (unsigned long long)sum);
  return 0;
}
