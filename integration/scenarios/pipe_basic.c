// scenario: pipe2 with O_CLOEXEC and O_NONBLOCK, reads and writes in one
// process, EAGAIN on an empty pipe, filling the pipe until EAGAIN,
// F_GETPIPE_SZ/F_SETPIPE_SZ, EOF after the writer closes, EPIPE with SIGPIPE
// ignored, and the time passed through the pipe.
#include "scenario.h"

#include <fcntl.h>
#include <signal.h>
#include <time.h>

int main(void) {
  int p[2];
  SYS(pipe2(p, O_CLOEXEC));
  printf("cloexec on both ends: %d %d\n", (int)SYS(fcntl(p[0], F_GETFD)),
         (int)SYS(fcntl(p[1], F_GETFD)));
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  char msg[64], got[64] = {0};
  int len = snprintf(msg, sizeof msg, "time %lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
  CHECK(SYS(write(p[1], msg, len)) == len);
  CHECK(SYS(read(p[0], got, sizeof got)) == len);
  printf("message survives the pipe: %s\n", strcmp(msg, got) == 0 ? "yes" : "no");
  nd("%s\n", got);
  SYS(close(p[0]));
  SYS(close(p[1]));

  SYS(pipe2(p, O_NONBLOCK));
  char buf[4096];
  errno = 0;
  CHECK(read(p[0], buf, sizeof buf) == -1);
  printf("read from empty nonblocking pipe: %s\n", errname(errno));
  printf("pipe size: %ld\n", SYS(fcntl(p[1], F_GETPIPE_SZ)));
  SYS(fcntl(p[1], F_SETPIPE_SZ, 8192));
  printf("pipe size after F_SETPIPE_SZ 8192: %ld\n", SYS(fcntl(p[1], F_GETPIPE_SZ)));
  memset(buf, 'x', sizeof buf);
  long total = 0;
  for (;;) {
    ssize_t n = write(p[1], buf, 1000);
    if (n == -1) {
      CHECK(errno == EAGAIN);
      break;
    }
    total += n;
  }
  printf("bytes until EAGAIN: %ld\n", total);
  long drained = 0;
  for (;;) {
    ssize_t n = read(p[0], buf, 3000);
    if (n == -1) {
      CHECK(errno == EAGAIN);
      break;
    }
    drained += n;
  }
  printf("drained: %ld\n", drained);
  SYS(write(p[1], "last", 4));
  SYS(close(p[1]));
  ssize_t n = SYS(read(p[0], buf, sizeof buf));
  printf("read %zd then EOF %zd\n", n, SYS(read(p[0], buf, sizeof buf)));
  SYS(close(p[0]));

  signal(SIGPIPE, SIG_IGN);
  SYS(pipe(p));
  SYS(close(p[0]));
  errno = 0;
  CHECK(write(p[1], "x", 1) == -1);
  printf("write to pipe without reader: %s\n", errname(errno));
  SYS(close(p[1]));
  return 0;
}
