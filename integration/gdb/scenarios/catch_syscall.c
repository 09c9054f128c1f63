// scenario: catch syscall stops at the entry and return of write(),
// scenario: forwards and backwards
#include <unistd.h>

int main(void) {
  write(1, "one\n", 4);
  write(1, "two\n", 4);
  return 0;
}
