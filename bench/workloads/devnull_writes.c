/* Syscall-bound with no data: open /dev/null and write 16 bytes COUNT times.
 * Usage: devnull_writes [COUNT]   (default 1000000)
 * Natively each write is ~0.15 us, so this measures the per-syscall cost of
 * the recorder almost alone. Prints one summary line. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
  unsigned long count = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000UL;
  static const char msg[16] = "0123456789abcde";
  int fd = open("/dev/null", O_WRONLY);
  if (fd < 0) { perror("/dev/null"); return 1; }
  unsigned long long written = 0;
  for (unsigned long i = 0; i < count; ++i) {
    ssize_t w = write(fd, msg, sizeof msg);
    if (w != (ssize_t)sizeof msg) { perror("write"); return 1; }
    written += (unsigned long long)w;
  }
  close(fd);
  printf("devnull_writes writes=%lu bytes=%llu\n", count, written);
  return 0;
}
