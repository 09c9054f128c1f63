// scenario: syscall buffering and a file that another process maps. The
// parent writes a file with pwrite64 (buffered once its site is patched and
// the descriptor allowed); a child forked earlier, which never wrote it,
// then maps the file MAP_SHARED and, turn by turn through pipes, prints what
// its mapping shows after each of the parent's next writes. The recorder
// must stop buffering the parent's descriptor when the child maps the file,
// or replay would show the child the old bytes.
// expect-buffered: 100
#include "proc_util.h"

#include <fcntl.h>
#include <sys/mman.h>

#define SIZE 4096

static __attribute__((noinline)) ssize_t site_pwrite(int fd, const void* b, size_t n, off_t off) {
  return pwrite(fd, b, n, off);
}

int main(void) {
  int fd = SYS(open("shared.dat", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  char block[SIZE];
  memset(block, '.', sizeof block);
  CHECK(SYS(pwrite(fd, block, sizeof block, 0)) == SIZE);
  int go[2], done[2];
  SYS(pipe(go));
  SYS(pipe(done));
  pid_t child = SYS(fork());
  if (child == 0) {
    char c;
    CHECK(SYS(read(go[0], &c, 1)) == 1);  // the parent buffers its writes by now
    int cfd = SYS(open("shared.dat", O_RDONLY | O_CLOEXEC));
    const char* map = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, cfd, 0);
    CHECK(map != MAP_FAILED);
    CHECK(SYS(write(done[1], "m", 1)) == 1);
    for (int turn = 0; turn < 5; turn++) {
      CHECK(SYS(read(go[0], &c, 1)) == 1);
      printf("child sees turn %d: %.12s\n", turn, map + turn * 16);
      fflush(stdout);
      CHECK(SYS(write(done[1], "d", 1)) == 1);
    }
    _exit(0);
  }
  // Buffered writes while no process maps the file.
  for (int i = 0; i < 200; i++) {
    char line[16];
    snprintf(line, sizeof line, "early %04d", i);
    CHECK(site_pwrite(fd, line, 10, 1024 + (i % 64) * 16) == 10);
  }
  char c;
  CHECK(SYS(write(go[1], "g", 1)) == 1);
  CHECK(SYS(read(done[0], &c, 1)) == 1);  // mapped
  for (int turn = 0; turn < 5; turn++) {
    char line[16];
    snprintf(line, sizeof line, "turn %d data", turn);
    CHECK(site_pwrite(fd, line, 12, turn * 16) == 12);
    CHECK(SYS(write(go[1], "g", 1)) == 1);
    CHECK(SYS(read(done[0], &c, 1)) == 1);
  }
  int status;
  SYS(waitpid(child, &status, 0));
  printf("child status %d\n", WEXITSTATUS(status));
  return 0;
}
