// scenario: a file mapped MAP_SHARED (its first page only) is written with
// write(2) past the mapped part, then that part is mapped too: the new
// mapping must show what was written. No fork needed.
//
// Known limit: the recorder records a write(2) into a shared-mapped file
// only as memory written at the file's mappings that exist at that moment
// (fs_syscalls.cc, record_shared_mapping_changes); bytes written where no
// mapping is are not recorded. Replay keeps one memfd per file while any
// mapping of it exists (replay/shared_memory.cc, SharedObjects::map), and a
// later mmap of another part of the same file is made over that memfd,
// whose bytes there are the zeros of the size note: the trace's new copy
// of the file (made at that mmap, holding the written bytes) is used only
// for a part beyond the memfd's old size. Replay then diverges (the
// program prints other bytes).
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
