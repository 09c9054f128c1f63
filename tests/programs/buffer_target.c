/* For replay_buffer_test: write(2) and pread(2) on a file many times, so
 * that the preload library buffers most of them, and exit with a status
 * computed from what it read back. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return 3;
  char line[32];
  for (int i = 0; i < 100; ++i) {
    int n = snprintf(line, sizeof line, "line %d\n", i);
    if (write(fd, line, (size_t)n) != n) return 4;
  }
  unsigned sum = 0;
  for (int i = 0; i < 100; ++i) {
    char c;
    if (pread(fd, &c, 1, i * 3) != 1) return 5;
    sum += (unsigned char)c;
  }
  close(fd);
  unlink(argv[1]);
  return (int)(sum % 200);
}
