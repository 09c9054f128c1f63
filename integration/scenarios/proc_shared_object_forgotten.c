// scenario: the parent maps a file MAP_SHARED and forks; the child unmaps
// its copy, maps another shared file and exits; the parent maps the first
// file a second time and checks that a store through one mapping shows
// through the other.
//
// Known limit (replay): the memfds that stand for shared objects are one
// table for the whole replayed tree (ReplaySession::shared_, a
// SharedObjects), but each process has its own mappings and descriptors.
// SharedObjects::map (replay/shared_memory.cc) first drops every object
// that the *mapping process* no longer maps (forget_unmapped reads only its
// /proc/PID/maps). Here the child's mmap of the second file drops the first
// file's object, which the parent still maps; the parent's second mmap of
// the first file then makes a new memfd from the trace's copy, not an alias
// of its first mapping, and replay diverges at the parent's printf (the
// store through the first mapping is not seen through the second). The
// table would have to be kept per address space (descriptors too: an
// object's descriptor number is valid only in the process that made it and
// in those forked from it afterwards).
#include "proc_util.h"

#include <sys/mman.h>

int main(void) {
  int a = SYS(memfd_create("first", 0));
  int b = SYS(memfd_create("second", 0));
  SYS(ftruncate(a, 4096));
  SYS(ftruncate(b, 4096));
  char* one = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
  CHECK(one != MAP_FAILED);
  strcpy(one, "before fork");
  pid_t pid = proc_fork();
  if (pid == 0) {
    if (munmap(one, 4096) != 0) _exit(3);
    char* other = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, b, 0);
    if (other == MAP_FAILED) _exit(4);
    strcpy(other, "child");
    _exit(0);
  }
  printf("child: %s\n", status_text(wait_for(pid)));
  char* two = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, a, 0);
  CHECK(two != MAP_FAILED);
  strcpy(one, "stored through the first mapping");
  printf("second mapping shows '%s'\n", two);
  return 0;
}
