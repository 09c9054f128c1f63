// scenario: a file (a memfd) mapped MAP_SHARED by the parent only after
// fork; the child writes into the file with pwrite(2); the parent reads the
// bytes through its mapping.
//
// A write(2) into a file that some process maps is recorded as bytes written
// into the file's shared object (fs_syscalls.cc, record_object_write), which
// replay writes into the memfd every mapping of the file shares, in any
// process (replay/shared_memory.cc, SharedObjects::write).
#include "proc_util.h"

#include <sys/mman.h>

int main(void) {
  int fd = SYS(memfd_create("after-fork", 0));
  SYS(ftruncate(fd, 4096));
  int go[2], done[2];
  SYS(pipe(go)); SYS(pipe(done));
  pid_t pid = proc_fork();
  if (pid == 0) {
    char c;
    if (read(go[0], &c, 1) != 1) _exit(3);
    char block[64];
    memset(block, 'k', sizeof block);
    if (pwrite(fd, block, sizeof block, 100) != 64) _exit(4);
    write_full(done[1], "d", 1);
    _exit(0);
  }
  char* map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(map != MAP_FAILED);
  write_full(go[1], "g", 1);
  char c;
  CHECK(read(done[0], &c, 1) == 1);
  printf("parent sees '%c%c' at 100, '%c' at 164\n", map[100], map[163], map[164] ? map[164] : '0');
  printf("child: %s\n", status_text(wait_for(pid)));
  return 0;
}
