// scenario: the program is deleted before the replay: gdb reads it, its
// scenario: libraries and its data from the recording
#include <stdio.h>
#include <string.h>

struct entry {
  const char* name;
  int value;
};

static const char message[] = "served from the trace";
static struct entry table[3] = {{"one", 1}, {"two", 2}, {"three", 3}};

int main(void) {
  int sum = 0;
  for (int i = 0; i < 3; i++) sum += table[i].value;
  printf("%s: %d %zu\n", message, sum, strlen(message));
  return 0;
}
