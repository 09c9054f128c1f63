/* Shaped like `sort --parallel=2`: reads N MiB of text lines from a file
 * (the driver writes it), two threads each sort half of the lines with a
 * merge sort on their own arrays, and the main thread merges the halves and
 * writes a checksum of the sorted order. The threads compute for long
 * stretches without system calls, so a recorder without a branch counter
 * hands the CPU from one to the other at forced positions.
 * Usage: par_sort FILE */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct half {
  char** lines;
  size_t n;
};

static void merge_sort(char** a, char** tmp, size_t n) {
  if (n < 2) return;
  size_t m = n / 2;
  merge_sort(a, tmp, m);
  merge_sort(a + m, tmp, n - m);
  size_t i = 0, j = m, k = 0;
  while (i < m && j < n) tmp[k++] = strcmp(a[i], a[j]) <= 0 ? a[i++] : a[j++];
  while (i < m) tmp[k++] = a[i++];
  while (j < n) tmp[k++] = a[j++];
  memcpy(a, tmp, n * sizeof *a);
}

static void* sort_half(void* arg) {
  struct half* h = arg;
  char** tmp = malloc(h->n * sizeof *tmp);
  merge_sort(h->lines, tmp, h->n);
  free(tmp);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc(size + 1);
  if (fread(text, 1, size, f) != (size_t)size) return 2;
  fclose(f);
  text[size] = 0;
  size_t n = 0, cap = 1 << 16;
  char** lines = malloc(cap * sizeof *lines);
  for (char* p = text; *p;) {
    if (n == cap) lines = realloc(lines, (cap *= 2) * sizeof *lines);
    lines[n++] = p;
    char* e = strchr(p, '\n');
    if (!e) break;
    *e = 0;
    p = e + 1;
  }
  struct half h[2] = {{lines, n / 2}, {lines + n / 2, n - n / 2}};
  pthread_t t[2];
  for (int i = 0; i < 2; ++i) pthread_create(&t[i], NULL, sort_half, &h[i]);
  for (int i = 0; i < 2; ++i) pthread_join(t[i], NULL);
  uint64_t sum = 0;
  size_t i = 0, j = 0, k = 0;
  while (i < h[0].n || j < h[1].n) {
    const char* next = j >= h[1].n || (i < h[0].n && strcmp(h[0].lines[i], h[1].lines[j]) <= 0) ? h[0].lines[i++]
                                                                                                 : h[1].lines[j++];
    sum = sum * 1099511628211ULL + (uint64_t)strlen(next) + (uint64_t)(unsigned char)next[0] * ++k;
  }
  printf("par_sort lines=%zu sum=%016llx\n", n, (unsigned long long)sum);
  return 0;
}
