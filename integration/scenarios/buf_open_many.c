// scenario: many regular files opened and read the way Python's open() and
// read() do it: openat, fstat, isatty (ioctl TCGETS), lseek(fd, 0,
// SEEK_CUR), FIONREAD, reads to the end, close. The library puts each
// descriptor its buffered openat creates into a gate itself (no stop comes
// between an open and the calls on the new descriptor), and buffers the
// terminal queries whatever the descriptor, so none of these calls stops
// the recording: only the first call at each site is traced. Then a number
// that the recorder knew as a file, freed by a buffered close, is reopened
// on /dev/stdout (buffered, kept out of the gates) and written at once:
// that write is traced and must be echoed by replay. Then a
// pseudo-terminal: window sizes set on the master (traced) and read on the
// slave (buffered), tcgetattr, and FIONREAD once each line written to the
// master has reached the slave. Last, posix_spawn children (vfork: they
// share the parent's memory and buffer) open a file right at a number the
// parent then gives to a dup of stdout, and fail to exec: the child's
// descriptor must not enter the parent's gates, or those writes are
// buffered and lost in replay.
// The files the program made and its inputs are changed or gone at replay.
// input-lines: a.txt 30
// input-lines: b.txt 7
// input-random: c.bin 5000
// input: d.txt = short\n
// expect-buffered: 4000
// expect-traced: ioctl 30
// expect-traced: lseek 8
// expect-traced: read 20
#include "scenario.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>

#define MADE 200

struct totals {
  long bytes, not_tty, left, at;
  uint64_t hash;
};

// What Python does for open(path).read().
static void read_like_python(const char* path, struct totals* t) {
  int fd = SYS(open(path, O_RDONLY | O_CLOEXEC));
  struct stat st;
  SYS(fstat(fd, &st));
  errno = 0;
  if (!isatty(fd) && errno == ENOTTY) t->not_tty++;
  t->at += SYS(lseek(fd, 0, SEEK_CUR));
  int left = -1;
  SYS(ioctl(fd, FIONREAD, &left));
  CHECK(left == st.st_size);
  t->left += left;
  char buf[1024];
  ssize_t n;
  while ((n = SYS(read(fd, buf, sizeof buf))) > 0) {
    t->hash = fnv1a(buf, (size_t)n, t->hash);
    t->bytes += n;
  }
  SYS(close(fd));
}

static void made_name(char* out, size_t size, int i) { snprintf(out, size, "made/f%03d.txt", i); }

int main(void) {
  // 1. Files the program writes (O_CREAT | O_EXCL: buffered; O_TRUNC would not be).
  SYS(mkdir("made", 0755));
  char name[64], line[64];
  for (int i = 0; i < MADE; i++) {
    made_name(name, sizeof name, i);
    int fd = SYS(open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    for (int j = 0; j <= i % 7; j++) {
      int len = snprintf(line, sizeof line, "file %d line %d\n", i, j);
      CHECK(SYS(write(fd, line, (size_t)len)) == len);
    }
    SYS(close(fd));
  }

  // 2. Every file read three times.
  const char* inputs[] = {"a.txt", "b.txt", "c.bin", "d.txt"};
  for (int round = 0; round < 3; round++) {
    struct totals t = {0, 0, 0, 0, FNV_INIT};
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) read_like_python(inputs[i], &t);
    for (int i = 0; i < MADE; i++) {
      made_name(name, sizeof name, i);
      read_like_python(name, &t);
    }
    printf("round %d: %ld bytes, hash %016llx, %ld not a terminal, %ld left by FIONREAD, offsets %ld\n", round,
           t.bytes, (unsigned long long)t.hash, t.not_tty, t.left, t.at);
  }
  printf("stdin, stdout, stderr are terminals: %d %d %d\n", isatty(0), isatty(1), isatty(2));

  // 3. A number the recorder knew as a file (its first write was traced),
  // closed by the library, comes back as stdout without a stop between.
  fflush(stdout);
  int scratch = SYS(open("scratch.txt", O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  int copy = SYS(dup(scratch));
  CHECK(SYS(write(copy, "x", 1)) == 1);
  static const char through[] = "written through /dev/stdout on a reused number\n";
  SYS(close(copy));
  int out = SYS(open("/dev/stdout", O_WRONLY | O_CLOEXEC));
  CHECK(SYS(write(out, through, sizeof through - 1)) == (ssize_t)sizeof through - 1);
  nd("stdout reopened as %d, the copy of scratch was %d\n", out, copy);
  SYS(close(out));
  SYS(close(scratch));

  // 4. A pseudo-terminal: the queries succeed there and write.
  int master = SYS(posix_openpt(O_RDWR | O_NOCTTY));
  SYS(grantpt(master));
  SYS(unlockpt(master));
  int slave = SYS(open(ptsname(master), O_RDWR | O_NOCTTY));
  for (int i = 0; i < 8; i++) {
    struct winsize ws = {.ws_row = (unsigned short)(10 + i), .ws_col = (unsigned short)(80 + 3 * i)};
    SYS(ioctl(master, TIOCSWINSZ, &ws));
    struct winsize got = {0, 0, 0, 0};
    SYS(ioctl(slave, TIOCGWINSZ, &got));
    struct termios tio;
    SYS(tcgetattr(slave, &tio));
    int len = snprintf(line, sizeof line, "line %d\n", i);
    CHECK(SYS(write(master, line, (size_t)len)) == len);
    struct pollfd pf = {.fd = slave, .events = POLLIN, .revents = 0};
    CHECK(SYS(poll(&pf, 1, 10000)) == 1);  // the line has reached the slave
    int ready = -1;
    SYS(ioctl(slave, FIONREAD, &ready));
    char got_line[64] = {0};
    ssize_t n = SYS(read(slave, got_line, sizeof got_line - 1));
    printf("pty %d: %u rows %u cols, canonical %d, terminal %d, %d ready, read %zd '%.*s'\n", i, got.ws_row,
           got.ws_col, !!(tio.c_lflag & ICANON), isatty(slave), ready, n, (int)(n > 0 ? n - 1 : 0), got_line);
  }
  SYS(close(slave));
  SYS(close(master));

  // 5. The spawned child opens at 3 (the lowest free number) without a
  // dup2, then its exec fails (an exec that works would map files, which
  // happens to clear the bit).
  for (int i = 0; i < 3; i++) {
    posix_spawn_file_actions_t fa;
    CHECK(posix_spawn_file_actions_init(&fa) == 0);
    CHECK(posix_spawn_file_actions_addopen(&fa, 3, "spawned.txt", O_WRONLY | O_CREAT | O_APPEND, 0644) == 0);
    char* argv[] = {"missing", NULL};
    extern char** environ;
    pid_t child;
    int status = posix_spawn(&child, "./no-such-program", &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    fflush(stdout);
    int copy_of_stdout = SYS(dup(1));
    CHECK(copy_of_stdout == 3);
    for (int j = 0; j < 3; j++) {
      int len = snprintf(line, sizeof line, "after spawn %d: %s, line %d\n", i, errname(status), j);
      CHECK(SYS(write(copy_of_stdout, line, (size_t)len)) == len);
    }
    SYS(close(copy_of_stdout));
  }
  struct stat spawned;
  SYS(stat("spawned.txt", &spawned));
  printf("spawned.txt: %ld bytes\n", (long)spawned.st_size);
  return 0;
}
