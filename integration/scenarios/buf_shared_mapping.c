// scenario: syscall buffering and a file mapped MAP_SHARED. The program
// writes a file with write(2) (buffered once its site is patched), maps it
// MAP_SHARED, and keeps writing with write(2) and pwrite64 at the same
// sites: the mapping sees every write, so the recorder must stop buffering
// that file's descriptor and record the mapped pages. A forked child keeps
// the mapping, the parent writes and the child prints what it sees, turn by
// turn through pipes.
// expect-buffered: 300
#include "proc_util.h"

#include <fcntl.h>
#include <sys/mman.h>

#define SIZE 8192

static __attribute__((noinline)) ssize_t site_write(int fd, const void* b, size_t n) {
  return write(fd, b, n);
}
static __attribute__((noinline)) ssize_t site_pwrite(int fd, const void* b, size_t n, off_t off) {
  return pwrite(fd, b, n, off);
}

static uint64_t sum_of(const volatile char* m, size_t n) {
  uint64_t h = FNV_INIT;
  for (size_t i = 0; i < n; i++) {
    char c = m[i];
    h = fnv1a(&c, 1, h);
  }
  return h;
}

int main(void) {
  int fd = SYS(open("mapped.dat", O_RDWR | O_CREAT | O_TRUNC, 0644));
  char line[32];
  for (int i = 0; i < SIZE / 32; i++) {
    memset(line, '.', sizeof line);
    snprintf(line, sizeof line, "line %d", i);
    line[31] = '\n';
    CHECK(SYS(site_write(fd, line, sizeof line)) == (ssize_t)sizeof line);
  }
  for (int i = 0; i < 100; i++) CHECK(SYS(site_pwrite(fd, "P", 1, (off_t)i * 80)) == 1);

  volatile char* m = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED);
  printf("mapped: [%.12s] sum %016llx\n", (const char*)m + 32, (unsigned long long)sum_of(m, SIZE));

  // Same process: writes through the descriptor, read through the mapping.
  SYS(lseek(fd, 0, SEEK_SET));
  long seen = 0;
  for (int i = 0; i < 64; i++) {
    char c = (char)('A' + i % 26);
    CHECK(SYS(site_write(fd, &c, 1)) == 1);
    CHECK(SYS(site_pwrite(fd, &c, 1, 4096 + i)) == 1);
    seen += m[i] == c && m[4096 + i] == c;
  }
  printf("own writes seen through the mapping: %ld/64\n", seen);
  m[100] = '#';  // and the other way round: a store, read with pread
  char back = 0;
  CHECK(SYS(pread(fd, &back, 1, 100)) == 1);
  printf("store seen by pread: %c\n", back);

  // A child keeps the mapping; the parent writes, the child looks.
  int to_child[2], to_parent[2];
  SYS(pipe(to_child));
  SYS(pipe(to_parent));
  pid_t pid = proc_fork();
  if (pid == 0) {
    SYS(close(to_child[1]));
    SYS(close(to_parent[0]));
    char turn;
    for (int i = 0; i < 8; i++) {
      CHECK(read_full(to_child[0], &turn, 1) == 1);
      child_say("child turn %d: [%.8s] sum %016llx\n", i, (const char*)m + 2048 + i * 8,
                (unsigned long long)sum_of(m, SIZE));
      write_full(to_parent[1], "k", 1);
    }
    _exit(0);
  }
  SYS(close(to_child[0]));
  SYS(close(to_parent[1]));
  for (int i = 0; i < 8; i++) {
    char word[9];
    snprintf(word, sizeof word, "turn%04d", i);
    CHECK(SYS(site_pwrite(fd, word, 8, 2048 + i * 8)) == 8);
    SYS(lseek(fd, 6000 + i, SEEK_SET));
    CHECK(SYS(site_write(fd, "w", 1)) == 1);
    write_full(to_child[1], "t", 1);
    char ok;
    CHECK(read_full(to_parent[0], &ok, 1) == 1);
  }
  printf("child: %s\n", status_text(wait_for(pid)));
  printf("final sum %016llx\n", (unsigned long long)sum_of(m, SIZE));
  SYS(munmap((void*)m, SIZE));
  SYS(close(fd));
  return 0;
}
