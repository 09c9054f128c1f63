// scenario: a file mapped MAP_SHARED (its first page only) is written with
// write(2) past the mapped part, then that part is mapped too: the new
// mapping must show what was written. No fork needed.
//
// The write is recorded as bytes written into the file's shared object,
// wherever they fall (fs_syscalls.cc, record_object_write), so the memfd
// replay keeps for the file holds them when the later mmap is made over it.
#include "scenario.h"

#include <sys/mman.h>

int main(void) {
  int fd = SYS(memfd_create("written-past-the-mapping", 0));
  SYS(ftruncate(fd, 4096));
  char* first = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(first != MAP_FAILED);
  strcpy(first, "first page");
  char block[4096];
  memset(block, 'w', sizeof block);
  SYS(pwrite(fd, block, sizeof block, 4096));  // grows the file to 8192
  char* second = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096);
  CHECK(second != MAP_FAILED);
  printf("first '%s', second page starts with '%c', ends with '%c'\n", first, second[0], second[4095]);
  return 0;
}
