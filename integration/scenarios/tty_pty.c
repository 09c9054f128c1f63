// scenario: a pseudo-terminal: posix_openpt/grantpt/unlockpt/ptsname,
// TCGETS/TCSETS (tcgetattr/tcsetattr), TIOCSWINSZ/TIOCGWINSZ, data written to
// the master read from the slave in raw and canonical mode, TIOCGPTN,
// FIONREAD, and isatty/ttyname.
#include "scenario.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <termios.h>

int main(void) {
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  CHECK(master >= 0);
  SYS(grantpt(master));
  SYS(unlockpt(master));
  char* name = ptsname(master);
  CHECK(name != NULL);
  nd("slave %s\n", name);
  unsigned ptn = 0;
  SYS(ioctl(master, TIOCGPTN, &ptn));
  char expect[64];
  snprintf(expect, sizeof expect, "/dev/pts/%u", ptn);
  printf("TIOCGPTN matches ptsname: %s\n", strcmp(expect, name) == 0 ? "yes" : "no");
  int slave = SYS(open(name, O_RDWR | O_NOCTTY));
  printf("isatty slave: %d master: %d\n", isatty(slave), isatty(master));
  char tn[64];
  CHECK(ttyname_r(slave, tn, sizeof tn) == 0);
  printf("ttyname matches: %s\n", strcmp(tn, name) == 0 ? "yes" : "no");

  struct winsize ws = {.ws_row = 42, .ws_col = 132, .ws_xpixel = 0, .ws_ypixel = 0};
  SYS(ioctl(master, TIOCSWINSZ, &ws));
  struct winsize got;
  SYS(ioctl(slave, TIOCGWINSZ, &got));
  printf("window size: %u rows %u cols\n", got.ws_row, got.ws_col);

  struct termios tio;
  SYS(tcgetattr(slave, &tio));
  printf("canonical: %d echo: %d\n", !!(tio.c_lflag & ICANON), !!(tio.c_lflag & ECHO));
  tio.c_lflag &= ~ECHO;
  SYS(tcsetattr(slave, TCSANOW, &tio));
  SYS(write(master, "line one\n", 9));
  char buf[128];
  ssize_t n = SYS(read(slave, buf, sizeof buf));
  printf("canonical read %zd: %.*s", n, (int)n, buf);

  cfmakeraw(&tio);
  SYS(tcsetattr(slave, TCSANOW, &tio));
  struct termios back;
  SYS(tcgetattr(slave, &back));
  printf("raw mode set: %s\n", (back.c_lflag & ICANON) == 0 ? "yes" : "no");
  SYS(write(master, "raw\x01\x02", 5));
  struct pollfd pfd = {.fd = slave, .events = POLLIN};
  CHECK(SYS(poll(&pfd, 1, 2000)) == 1);
  int avail = 0;
  SYS(ioctl(slave, FIONREAD, &avail));
  n = SYS(read(slave, buf, sizeof buf));
  printf("raw read %zd bytes (FIONREAD said %d): %02x %02x\n", n, avail, buf[3], buf[4]);
  SYS(write(slave, "to master\n", 10));
  pfd.fd = master;
  CHECK(SYS(poll(&pfd, 1, 2000)) == 1);
  n = SYS(read(master, buf, sizeof buf));
  printf("master read: %.*s", (int)n, buf);
  SYS(close(slave));
  SYS(close(master));
  return 0;
}
