// scenario: fork right after buffered calls whose records are still in the
// parent's buffer: the child's copy of the buffer must not hold them as its
// own (the recorder flushes at the fork's entry). The parent seeks a file
// with lseek (buffered once its site is patched), forks at once, and the
// child seeks and reads the same descriptor with the same buffered calls;
// both print what they got, the child first.
// Unloaded, 40 calls are buffered. Under load a time slice can end while
// the parent runs, and the recorder then asks for a switch point: the next
// call is traced (forced_position.cc). 36 leaves room for that and still
// fails if the children's 6 buffered calls are lost.
// expect-buffered: 36
#include "proc_util.h"

#include <fcntl.h>
#include <sys/syscall.h>

static __attribute__((noinline)) off_t site_lseek(int fd, off_t off, int whence) { return lseek(fd, off, whence); }
static __attribute__((noinline)) ssize_t site_read(int fd, void* b, size_t n) { return read(fd, b, n); }

int main(void) {
  int fd = SYS(open("data.txt", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  const char text[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  CHECK(SYS(write(fd, text, sizeof text - 1)) == (ssize_t)(sizeof text - 1));
  for (int round = 0; round < 3; round++) {
    // Buffered lseeks and reads, left in the buffer by the fork.
    for (int i = 0; i < 10; i++) CHECK(site_lseek(fd, i, SEEK_SET) == i);
    char c;
    CHECK(site_read(fd, &c, 1) == 1);
    off_t end = site_lseek(fd, 0, SEEK_END);
    // The raw system call: glibc's fork() makes a traced call in the child
    // (set_robust_list) before anything else, which would hide the stale
    // records; here the child's first calls are buffered ones.
    pid_t child = (pid_t)SYS(syscall(SYS_fork));
    if (child == 0) {
      off_t here = site_lseek(fd, 7 + round, SEEK_SET);
      char got[4] = {0};
      ssize_t n = site_read(fd, got, 3);
      printf("round %d child: lseek %ld, read %zd '%s'\n", round, (long)here, n, got);
      fflush(stdout);
      _exit(0);
    }
    int status;
    SYS(waitpid(child, &status, 0));
    printf("round %d parent: end %ld, read '%c', child status %d\n", round, (long)end, c, WEXITSTATUS(status));
  }
  return 0;
}
