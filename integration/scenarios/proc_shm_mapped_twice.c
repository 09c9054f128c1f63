// scenario: a POSIX shared-memory object that parent and child each map on
// their own after the fork (not inherited), both alive: a store by the
// child is read by the parent, and one by the parent by the child. In
// replay both mappings must be one object.
#define _GNU_SOURCE
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>

int main(void) {
  char name[64];
  snprintf(name, sizeof name, "/bs_mapped_twice_%d", (int)getpid());
  int fd = SYS(shm_open(name, O_CREAT | O_RDWR | O_EXCL, 0600));
  SYS(ftruncate(fd, 4096));
  int up[2], down[2];
  SYS(pipe(up));
  SYS(pipe(down));
  char c;
  pid_t pid = SYS(fork());
  if (pid == 0) {
    int* q = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (q == MAP_FAILED) _exit(90);
    if (write(up[1], "m", 1) != 1 || read(down[0], &c, 1) != 1) _exit(91);
    q[1] = 1234;
    if (write(up[1], "w", 1) != 1 || read(down[0], &c, 1) != 1) _exit(92);
    _exit(q[2] == 5678 ? 0 : 93);
  }
  SYS(read(up[0], &c, 1));
  int* r = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(r != MAP_FAILED);
  SYS(write(down[1], "m", 1));
  SYS(read(up[0], &c, 1));
  printf("parent sees %d\n", r[1]);
  r[2] = 5678;
  SYS(write(down[1], "w", 1));
  int st = 0;
  SYS(waitpid(pid, &st, 0));
  printf("child exit %d\n", WEXITSTATUS(st));
  SYS(shm_unlink(name));
  return 0;
}
