// scenario: a program runs itself again through the shell (system(), which
// scenario: forks /bin/sh, which forks and execs this program with the
// scenario: argument "child"). gdb debugs that exec'd child from its exec:
// scenario: it sees the program's own symbols, a breakpoint in the child,
// scenario: reverse-continue inside it, and its exit status.
// debug: --onexec child 2
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int squares;

__attribute__((noinline)) void add_square(int k) {
  squares += k * k;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) {
    for (int k = 1; k <= 4; k++) add_square(k);
    printf("child: %d\n", squares);
    return squares % 7;
  }
  int status = system("./tree_exec child; echo shell done");
  printf("parent: shell status %d\n", status);
  return 0;
}
