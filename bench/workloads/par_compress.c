/* Shaped like `xz -T2`: reads a file (the driver writes it), and two
 * threads compress alternate 1 MiB blocks of it with a greedy LZ77 (a hash
 * table of earlier positions per thread), writing each block's output into
 * its own buffer; the main thread writes the compressed stream to a file
 * and prints its size and a checksum. The threads compute for long
 * stretches without system calls.
 * Usage: par_compress INPUT OUTPUT */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK (1 << 20)
#define HASH_BITS 16

struct job {
  const uint8_t* in;
  size_t size;
  int first;  // this thread's first block; it takes every other one
  uint8_t** out;
  size_t* out_len;
  size_t blocks;
};

static size_t compress_block(const uint8_t* in, size_t n, uint8_t* out, uint32_t* table) {
  memset(table, 0xff, sizeof(uint32_t) << HASH_BITS);
  size_t i = 0, o = 0;
  while (i + 4 <= n) {
    uint32_t v;
    memcpy(&v, in + i, 4);
    uint32_t h = (v * 2654435761u) >> (32 - HASH_BITS);
    uint32_t cand = table[h];
    table[h] = (uint32_t)i;
    size_t len = 0;
    if (cand != 0xffffffffu && i - cand < 65535) {
      while (i + len < n && len < 255 && in[cand + len] == in[i + len]) len++;
    }
    if (len >= 4) {
      out[o++] = 1;
      out[o++] = (uint8_t)len;
      out[o++] = (uint8_t)((i - cand) & 0xff);
      out[o++] = (uint8_t)((i - cand) >> 8);
      i += len;
    } else {
      out[o++] = 0;
      out[o++] = in[i++];
    }
  }
  while (i < n) {
    out[o++] = 0;
    out[o++] = in[i++];
  }
  return o;
}

static void* worker(void* arg) {
  struct job* j = arg;
  uint32_t* table = malloc(sizeof(uint32_t) << HASH_BITS);
  for (size_t b = (size_t)j->first; b < j->blocks; b += 2) {
    size_t start = b * BLOCK, n = j->size - start < BLOCK ? j->size - start : BLOCK;
    j->out[b] = malloc(2 * n + 16);
    j->out_len[b] = compress_block(j->in + start, n, j->out[b], table);
  }
  free(table);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  FILE* f = fopen(argv[1], "rb");
  if (!f) return 2;
  fseek(f, 0, SEEK_END);
  size_t size = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t* in = malloc(size);
  if (fread(in, 1, size, f) != size) return 2;
  fclose(f);
  size_t blocks = (size + BLOCK - 1) / BLOCK;
  uint8_t** out = calloc(blocks, sizeof *out);
  size_t* out_len = calloc(blocks, sizeof *out_len);
  struct job jobs[2];
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    jobs[i] = (struct job){in, size, i, out, out_len, blocks};
    pthread_create(&t[i], NULL, worker, &jobs[i]);
  }
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  FILE* o = fopen(argv[2], "wb");
  if (!o) return 2;
  uint64_t sum = 0, total = 0;
  for (size_t b = 0; b < blocks; b++) {
    fwrite(out[b], 1, out_len[b], o);
    for (size_t k = 0; k < out_len[b]; k++) sum = sum * 31 + out[b][k];
    total += out_len[b];
  }
  fclose(o);
  printf("par_compress in=%zu out=%llu sum=%016llx\n", size, (unsigned long long)total, (unsigned long long)sum);
  return 0;
}
