// scenario: a program built with AddressSanitizer's shared runtime (gcc's
// -fsanitize=address: libasan.so is a needed library, which must come first
// in the loaded libraries), recorded with syscall buffering on: the recorder
// tells ASan not to check that order, since the preload library goes first.
// It builds lists on the heap, frees them, and reads and writes a file
// through buffered calls. LeakSanitizer's check at exit finds nothing
// (its stop-the-world uses ptrace, which the recorder emulates).
// expect-buffered: 120
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct node {
  struct node* next;
  int value;
};

int main(void) {
  long total = 0;
  for (int round = 0; round < 50; round++) {
    struct node* head = NULL;
    for (int i = 0; i < 100; i++) {
      struct node* n = malloc(sizeof *n);
      n->value = i * round;
      n->next = head;
      head = n;
    }
    while (head) {
      struct node* next = head->next;
      total += head->value;
      free(head);
      head = next;
    }
  }
  int fd = open("data.txt", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return 2;
  char line[32];
  for (int i = 0; i < 100; i++) {
    int len = snprintf(line, sizeof line, "%d\n", i);
    if (write(fd, line, (size_t)len) != len) return 3;
  }
  long sum = 0;
  lseek(fd, 0, SEEK_SET);
  char* buf = calloc(1, 512);
  ssize_t got;
  while ((got = read(fd, buf, 7)) > 0) {
    for (ssize_t i = 0; i < got; i++) sum += buf[i];
  }
  free(buf);
  close(fd);
  printf("total %ld, bytes sum %ld\n", total, sum);
  return 0;
}
