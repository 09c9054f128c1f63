// scenario: syscall buffering when descriptor numbers are reused. Two files
// are read and written at fixed call sites (patched, then buffered); the
// files are closed and the same numbers come back as a pipe, as a dup of
// stdout (whose writes the recorder must echo), as a socketpair, after a
// dup2 of an allowed file over another number, and after close_range. Each
// new object is used through the same call sites: the recorder has to have
// taken the numbers out of the buffer's allowed set, or stdout loses lines
// in replay and pipes and sockets are read by the program unrecorded.
// input-lines: in.txt 300
// expect-buffered: 450
#include "scenario.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

// The two call sites everything goes through.
static __attribute__((noinline)) ssize_t site_read(int fd, void* buf, size_t n) {
  return read(fd, buf, n);
}
static __attribute__((noinline)) ssize_t site_write(int fd, const void* buf, size_t n) {
  return write(fd, buf, n);
}

static void say(int fd, const char* text) {
  CHECK(site_write(fd, text, strlen(text)) == (ssize_t)strlen(text));
}

int main(void) {
  char buf[256];
  fflush(stdout);

  // Phase 1: a file read and a file written, 200 times each.
  int in = SYS(open("in.txt", O_RDONLY));
  int out = SYS(open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644));
  uint64_t h = FNV_INIT;
  for (int i = 0; i < 200; i++) {
    ssize_t n = SYS(site_read(in, buf, 45));
    h = fnv1a(buf, (size_t)n, h);
    CHECK(SYS(site_write(out, buf, (size_t)n)) == n);
  }
  printf("phase 1: %016llx (fds %d %d)\n", (unsigned long long)h, in, out);
  fflush(stdout);
  SYS(close(in));
  SYS(close(out));

  // Phase 2: the numbers as a pipe (read end first, so the pipe's read end
  // is the old input and its write end the old output).
  int p[2];
  SYS(pipe(p));
  printf("pipe reuses the numbers: %s\n", p[0] == in && p[1] == out ? "yes" : "no");
  fflush(stdout);
  for (int i = 0; i < 50; i++) {
    char msg[32];
    int len = snprintf(msg, sizeof msg, "message %d;", i);
    CHECK(SYS(site_write(p[1], msg, (size_t)len)) == len);
    ssize_t n = SYS(site_read(p[0], buf, sizeof buf));
    CHECK(n == len && memcmp(buf, msg, (size_t)len) == 0);
  }
  say(1, "phase 2: 50 messages through the pipe\n");
  SYS(close(p[0]));
  SYS(close(p[1]));

  // Phase 3: the old output number as stdout: every line must reach stdout
  // at record time and be echoed in replay.
  SYS(dup2(1, out));
  for (int i = 0; i < 5; i++) {
    snprintf(buf, sizeof buf, "phase 3: line %d through fd %d\n", i, out);
    say(out, buf);
  }
  SYS(close(out));

  // Phase 4: a socketpair on the reused numbers.
  int sv[2];
  SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  for (int i = 0; i < 50; i++) {
    char msg[32];
    int len = snprintf(msg, sizeof msg, "packet %d|", i);
    CHECK(SYS(site_write(sv[0], msg, (size_t)len)) == len);
    CHECK(SYS(site_read(sv[1], buf, (size_t)len)) == len);
    CHECK(memcmp(buf, msg, (size_t)len) == 0);
  }
  say(1, "phase 4: 50 packets through the socketpair\n");

  // Phase 5: dup2 of an allowed file over the socket's number, then of the
  // socket over the file's number.
  int file = SYS(open("in.txt", O_RDONLY));
  h = FNV_INIT;
  for (int i = 0; i < 100; i++) {
    ssize_t n = SYS(site_read(file, buf, 45));
    h = fnv1a(buf, (size_t)n, h);
  }
  SYS(dup2(file, sv[0]));  // sv[0] is now in.txt, at offset 4500
  ssize_t n = SYS(site_read(sv[0], buf, 45));
  printf("phase 5: file %016llx, then through the dup: [%.*s]\n", (unsigned long long)h,
         (int)n - 1, buf);
  fflush(stdout);
  SYS(dup2(1, file));  // the file's number is stdout now
  snprintf(buf, sizeof buf, "phase 5: stdout over the file's number %d\n", file);
  say(file, buf);

  // Phase 6: close_range over all of them; then a pipe and stdout at the
  // lowest numbers again.
  SYS(syscall(SYS_close_range, 3, ~0U, 0));
  SYS(pipe(p));
  CHECK(SYS(site_write(p[1], "after close_range", 17)) == 17);
  n = SYS(site_read(p[0], buf, sizeof buf));
  snprintf(buf + n, sizeof buf - (size_t)n, " (pipe at %d %d)\n", p[0], p[1]);
  say(1, buf);
  SYS(dup2(1, p[0]));
  say(p[0], "phase 6: stdout over the pipe's read end\n");
  return 0;
}
