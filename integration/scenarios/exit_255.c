// scenario: exit(-1) is exit status 255; the status also comes from a value
// computed at run time.
// expect-exit: 255
#include "scenario.h"

#include <time.h>

int main(void) {
  time_t t = time(NULL);
  int code = (t > 0) ? -1 : 7;
  printf("exit(%d)\n", code);
  exit(code);
}
