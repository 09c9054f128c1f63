/* Shaped like a hash join: reads a file of text lines (the driver writes
 * it), builds a hash table of the keys of its first half (key: the text
 * before the first '-'), and two threads probe it with the keys of the
 * second half, each counting matches and summing a hash of the matched
 * rows; the main thread prints the totals. The probing threads compute for
 * long stretches without system calls over a table of tens of megabytes.
 * Usage: par_hashjoin FILE */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
  uint64_t key;
  uint32_t row;
  uint32_t next;  // index + 1 of the next entry in the bucket, 0 for none
};

static struct entry* entries;
static uint32_t* buckets;  // index + 1 of the first entry
static uint64_t mask;
static char** lines;

struct probe {
  size_t from, to;
  uint64_t matches, sum;
};

static uint64_t key_of(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s && *s != '-'; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void* probe(void* arg) {
  struct probe* p = arg;
  for (int pass = 0; pass < 4; pass++) {
    for (size_t i = p->from; i < p->to; i++) {
      uint64_t k = key_of(lines[i]) ^ (uint64_t)pass;
      for (uint32_t e = buckets[k & mask]; e; e = entries[e - 1].next) {
        if (entries[e - 1].key == k) {
          p->matches++;
          p->sum += entries[e - 1].row * 2654435761ull + i;
        }
      }
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)size + 1);
  if (fread(text, 1, (size_t)size, f) != (size_t)size) return 2;
  fclose(f);
  text[size] = 0;
  size_t n = 0, cap = 1 << 16;
  lines = malloc(cap * sizeof *lines);
  for (char* s = text; *s;) {
    if (n == cap) lines = realloc(lines, (cap *= 2) * sizeof *lines);
    lines[n++] = s;
    char* e = strchr(s, '\n');
    if (!e) break;
    *e = 0;
    s = e + 1;
  }
  size_t build = n / 2;
  uint64_t nb = 1;
  while (nb < build * 2) nb <<= 1;
  mask = nb - 1;
  buckets = calloc(nb, sizeof *buckets);
  entries = malloc(4 * build * sizeof *entries);
  size_t used = 0;
  for (int pass = 0; pass < 4; pass++) {
    for (size_t i = 0; i < build; i += 2) {  // every other row, under four keys
      uint64_t k = key_of(lines[i]) ^ (uint64_t)pass;
      entries[used] = (struct entry){k, (uint32_t)i, buckets[k & mask]};
      buckets[k & mask] = (uint32_t)++used;
    }
  }
  struct probe p[2] = {{0, n / 2, 0, 0}, {n / 2, n, 0, 0}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, probe, &p[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  printf("par_hashjoin rows=%zu matches=%llu sum=%016llx\n", n, (unsigned long long)(p[0].matches + p[1].matches),
         (unsigned long long)(p[0].sum + p[1].sum));
  return 0;
}
