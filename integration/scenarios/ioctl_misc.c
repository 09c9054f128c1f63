// scenario: ioctl on non-terminals: FIONREAD on a pipe, a socket and a regular
// file, FIONBIO on and off, FIOCLEX/FIONCLEX, and TCGETS/TIOCGWINSZ on stdin
// (a pipe here, so ENOTTY).
#include "scenario.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <termios.h>

int main(void) {
  int p[2];
  SYS(pipe(p));
  int avail = -1;
  SYS(ioctl(p[0], FIONREAD, &avail));
  printf("FIONREAD empty pipe: %d\n", avail);
  SYS(write(p[1], "0123456789abc", 13));
  SYS(ioctl(p[0], FIONREAD, &avail));
  printf("FIONREAD after 13 bytes: %d\n", avail);
  int on = 1, off = 0;
  SYS(ioctl(p[0], FIONBIO, &on));
  printf("O_NONBLOCK after FIONBIO 1: %d\n", !!(SYS(fcntl(p[0], F_GETFL)) & O_NONBLOCK));
  char buf[64];
  SYS(read(p[0], buf, sizeof buf));
  errno = 0;
  CHECK(read(p[0], buf, sizeof buf) == -1);
  printf("nonblocking read: %s\n", errname(errno));
  SYS(ioctl(p[0], FIONBIO, &off));
  printf("O_NONBLOCK after FIONBIO 0: %d\n", !!(SYS(fcntl(p[0], F_GETFL)) & O_NONBLOCK));
  SYS(ioctl(p[1], FIOCLEX));
  printf("FIOCLEX: %ld\n", SYS(fcntl(p[1], F_GETFD)));
  SYS(ioctl(p[1], FIONCLEX));
  printf("FIONCLEX: %ld\n", SYS(fcntl(p[1], F_GETFD)));

  int sv[2];
  SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  SYS(send(sv[0], "hello", 5, 0));
  SYS(ioctl(sv[1], FIONREAD, &avail));
  printf("FIONREAD socket: %d\n", avail);

  int fd = SYS(open("f.txt", O_CREAT | O_RDWR | O_TRUNC, 0644));
  SYS(write(fd, "twenty bytes of text", 20));
  SYS(lseek(fd, 6, SEEK_SET));
  SYS(ioctl(fd, FIONREAD, &avail));
  printf("FIONREAD regular file at offset 6: %d\n", avail);

  struct termios tio;
  errno = 0;
  CHECK(ioctl(0, TCGETS, &tio) == -1);
  printf("TCGETS on stdin: %s\n", errname(errno));
  struct winsize ws;
  errno = 0;
  CHECK(ioctl(0, TIOCGWINSZ, &ws) == -1);
  printf("TIOCGWINSZ on stdin: %s\n", errname(errno));
  printf("isatty(0): %d isatty(1): %d\n", isatty(0), isatty(1));
  errno = 0;
  CHECK(ioctl(fd, TCGETS, &tio) == -1);
  printf("TCGETS on a file: %s\n", errname(errno));
  errno = 0;
  CHECK(ioctl(999, FIONREAD, &avail) == -1);
  printf("ioctl on a closed fd: %s\n", errname(errno));
  return 0;
}
