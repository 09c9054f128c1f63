// scenario: producer/consumer between processes: a child writes 3,000
// records of varying size (1 MB in all) into a pipe, the parent reads them
// with reads of another size and checksums them; then the roles swap, with
// the parent closing early so that the child's writes fail with EPIPE.
#include "proc_util.h"

#define RECORDS 3000

static size_t rec_len(int i) { return 1 + (size_t)(i * 131 % 700); }

static uint64_t produce(int fd) {
  unsigned char buf[800];
  uint64_t h = FNV_INIT;
  for (int i = 0; i < RECORDS; i++) {
    size_t len = rec_len(i);
    for (size_t k = 0; k < len; k++) buf[k] = (unsigned char)(i * 7 + k);
    write_full(fd, buf, len);
    h = fnv1a(buf, len, h);
  }
  return h;
}

int main(void) {
  int fds[2];
  SYS(pipe(fds));
  pid_t pid = proc_fork();
  if (pid == 0) {
    close(fds[0]);
    uint64_t h = produce(fds[1]);
    _exit((int)(h & 0x7f));
  }
  close(fds[1]);
  uint64_t h = FNV_INIT, total = 0;
  unsigned char buf[4093];
  for (;;) {
    ssize_t r = read(fds[0], buf, sizeof buf);
    CHECK(r >= 0);
    if (r == 0) break;
    h = fnv1a(buf, (size_t)r, h);
    total += (uint64_t)r;
  }
  close(fds[0]);
  int status = wait_for(pid);
  printf("consumed %llu bytes, hash %016llx\n", (unsigned long long)total, (unsigned long long)h);
  printf("producer's hash agrees: %d\n", WIFEXITED(status) && WEXITSTATUS(status) == (int)(h & 0x7f));

  SYS(pipe(fds));
  pid = proc_fork();
  if (pid == 0) {
    close(fds[1]);
    unsigned char small[100];
    size_t got = read_full(fds[0], small, sizeof small);
    child_say("child read %zu bytes and closes its end\n", got);
    _exit(0);
  }
  close(fds[0]);
  signal(SIGPIPE, SIG_IGN);
  write_full(fds[1], buf, 100);
  printf("reader: %s\n", status_text(wait_for(pid)));
  errno = 0;
  ssize_t w = write(fds[1], buf, 10);
  printf("write after the reader left: %zd %s\n", w, errname(errno));
  return 0;
}
