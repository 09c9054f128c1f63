/* Syscall-heavy: copy SRC to DST with read()/write() in 4 KiB chunks.
 * Usage: copy_file SRC DST [CHUNK]   (default chunk 4096)
 * A 200 MB file is 51,200 reads plus 51,200 writes. Prints one summary line. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s SRC DST [CHUNK]\n", argv[0]);
    return 2;
  }
  size_t chunk = argc > 3 ? strtoul(argv[3], NULL, 10) : 4096;
  char *buf = malloc(chunk);
  int in = open(argv[1], O_RDONLY);
  if (in < 0) { perror(argv[1]); return 1; }
  int out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0) { perror(argv[2]); return 1; }
  unsigned long long total = 0, reads = 0;
  for (;;) {
    ssize_t n = read(in, buf, chunk);
    if (n < 0) { perror("read"); return 1; }
    if (n == 0) break;
    ++reads;
    for (ssize_t off = 0; off < n;) {
      ssize_t w = write(out, buf + off, (size_t)(n - off));
      if (w < 0) { perror("write"); return 1; }
      off += w;
    }
    total += (unsigned long long)n;
  }
  if (close(out) != 0) { perror("close"); return 1; }
  close(in);
  printf("copy_file bytes=%llu reads=%llu chunk=%zu\n", total, reads, chunk);
  return 0;
}
