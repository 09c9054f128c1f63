// scenario: stdio buffering on a pipe: full buffering (output appears at
// fflush or exit), setvbuf to line buffering and to no buffering, puts,
// putchar, fwrite of binary bytes, a buffer larger than BUFSIZ, and stderr
// lines. stdout and stderr are captured separately.
#include "scenario.h"

#include <time.h>

int main(void) {
  static char buf1[64];
  printf("partial ");
  printf("line, flushed later\n");
  fflush(stdout);
  setvbuf(stdout, buf1, _IOLBF, sizeof buf1);
  printf("line buffered: this line is longer than the sixty-four byte buffer, so it spills\n");
  printf("no newline yet...");
  printf(" now\n");
  setvbuf(stdout, NULL, _IONBF, 0);
  for (int i = 0; i < 5; i++) putchar('0' + i);
  putchar('\n');
  puts("puts adds a newline");
  unsigned char bin[256];
  for (int i = 0; i < 256; i++) bin[i] = (unsigned char)i;
  fwrite(bin, 1, sizeof bin, stdout);
  putchar('\n');
  static char big[3 * 8192 + 17];
  memset(big, '=', sizeof big - 1);
  setvbuf(stdout, NULL, _IOFBF, 4096);
  fputs(big, stdout);
  fputs("\n", stdout);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  nd("%lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
  fprintf(stderr, "to stderr, unbuffered\n");
  fputs("left in the buffer until exit", stdout);
  return 0;
}
