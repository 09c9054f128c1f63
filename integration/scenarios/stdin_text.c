// scenario: read text from stdin (the driver feeds it; replay gets none), with
// fgets and getline: count lines and words, echo them upper-cased.
// stdin: The first line of input
// stdin: second line, with "quotes" and tabs\there
// stdin:
// stdin: after an empty line: ümlaut and 12345
#include "scenario.h"

#include <ctype.h>

int main(void) {
  char first[64];
  CHECK(fgets(first, sizeof first, stdin) != NULL);
  printf("fgets: %s", first);
  char* line = NULL;
  size_t cap = 0;
  ssize_t n;
  int lines = 1, words = 0;
  while ((n = getline(&line, &cap, stdin)) != -1) {
    lines++;
    int in_word = 0;
    for (ssize_t i = 0; i < n; i++) {
      if (isspace((unsigned char)line[i])) {
        in_word = 0;
      } else if (!in_word) {
        in_word = 1;
        words++;
      }
      line[i] = (char)toupper((unsigned char)line[i]);
    }
    printf("%2d: %s", lines, line);
  }
  free(line);
  printf("lines %d, words after the first line %d, eof %d\n", lines, words, feof(stdin));
  char c;
  printf("read(0) at EOF: %zd\n", SYS(read(0, &c, 1)));
  return 0;
}
