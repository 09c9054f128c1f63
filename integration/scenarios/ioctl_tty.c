// scenario: terminal ioctls on a pseudo-terminal beyond tcgetattr: the old
// 'T' requests that write (TCGETA, TIOCGLCKTRMIOS, TIOCGETD, TIOCGSOFTCAR,
// TIOCOUTQ, TIOCINQ), the encoded ones (TCGETS2, TIOCGPTN, TIOCGPTLCK,
// TIOCGPKT, TIOCGEXCL, TIOCGDEV), TIOCGPTPEER returning a descriptor, and the
// ones a pty refuses (TIOCMGET, TIOCGSERIAL, VT_OPENQRY, KDGETMODE, TIOCGSID,
// TIOCGPGRP without a controlling terminal). Output buffers start filled
// with a pattern, so memory the recording missed prints differently.
#include "scenario.h"

#include <asm/termbits.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/serial.h>
#include <linux/vt.h>
#include <poll.h>
#include <sys/ioctl.h>

#define FILL 0xa5

static long try_ioctl(const char* name, int fd, unsigned long req, void* arg) {
  errno = 0;
  long r = ioctl(fd, req, arg);
  if (r < 0) {
    printf("%s (0x%lx): %s\n", name, req, strerrorname_np(errno));
  } else {
    printf("%s (0x%lx): ok\n", name, req);
  }
  return r;
}

static int get_int(const char* name, int fd, unsigned long req) {
  int v;
  memset(&v, FILL, sizeof v);
  if (try_ioctl(name, fd, req, &v) == 0) printf("  value %d\n", v);
  return v;
}

int main(void) {
  int master = SYS(open("/dev/ptmx", O_RDWR | O_NOCTTY));
  int unlock = 0;
  SYS(ioctl(master, TIOCSPTLCK, &unlock));
  unsigned ptn;
  memset(&ptn, FILL, sizeof ptn);
  try_ioctl("TIOCGPTN", master, TIOCGPTN, &ptn);
  nd("pty number %u\n", ptn);
  get_int("TIOCGPTLCK", master, TIOCGPTLCK);
  int pkt = 1;
  SYS(ioctl(master, TIOCPKT, &pkt));
  get_int("TIOCGPKT", master, TIOCGPKT);
  pkt = 0;
  SYS(ioctl(master, TIOCPKT, &pkt));

  int slave = (int)try_ioctl("TIOCGPTPEER", master, TIOCGPTPEER, (void*)(long)(O_RDWR | O_NOCTTY));
  CHECK(slave >= 0);

  struct termios2 t2;
  memset(&t2, FILL, sizeof t2);
  try_ioctl("TCGETS2", slave, TCGETS2, &t2);
  printf("  canonical %d, ispeed %u\n", !!(t2.c_lflag & ICANON), t2.c_ispeed);
  struct termio tio;
  memset(&tio, FILL, sizeof tio);
  try_ioctl("TCGETA", slave, TCGETA, &tio);
  printf("  lflag matches TCGETS2: %s, VMIN %d\n", tio.c_lflag == (unsigned short)t2.c_lflag ? "yes" : "no",
         tio.c_cc[VMIN]);
  struct termios locked;
  memset(&locked, FILL, sizeof locked);
  try_ioctl("TIOCGLCKTRMIOS", slave, TIOCGLCKTRMIOS, &locked);
  printf("  locked cflag 0x%x lflag 0x%x\n", locked.c_cflag, locked.c_lflag);
  get_int("TIOCGETD", slave, TIOCGETD);
  get_int("TIOCGSOFTCAR", slave, TIOCGSOFTCAR);
  SYS(ioctl(slave, TIOCEXCL));
  get_int("TIOCGEXCL", slave, TIOCGEXCL);
  SYS(ioctl(slave, TIOCNXCL));
  get_int("TIOCGEXCL after TIOCNXCL", slave, TIOCGEXCL);
  unsigned dev;
  memset(&dev, FILL, sizeof dev);
  if (try_ioctl("TIOCGDEV", slave, TIOCGDEV, &dev) == 0) nd("device 0x%x\n", dev);

  SYS(write(slave, "to the master", 13));
  int outq;
  memset(&outq, FILL, sizeof outq);
  try_ioctl("TIOCOUTQ slave", slave, TIOCOUTQ, &outq);
  nd("output queued %d\n", outq);
  struct pollfd pfd = {.fd = master, .events = POLLIN};
  CHECK(SYS(poll(&pfd, 1, 5000)) == 1);
  int inq;
  memset(&inq, FILL, sizeof inq);
  try_ioctl("TIOCINQ master", master, TIOCINQ, &inq);
  printf("  some input queued: %s\n", inq > 0 && inq <= 13 ? "yes" : "no");
  nd("input queued %d\n", inq);
  char buf[32];
  SYS(read(master, buf, sizeof buf));

  get_int("TIOCMGET", slave, TIOCMGET);
  struct serial_struct ser;
  try_ioctl("TIOCGSERIAL", slave, TIOCGSERIAL, &ser);
  get_int("VT_OPENQRY", slave, VT_OPENQRY);
  get_int("KDGETMODE", slave, KDGETMODE);
  get_int("TIOCGSID", slave, TIOCGSID);
  get_int("TIOCGPGRP", slave, TIOCGPGRP);
  SYS(close(slave));
  SYS(close(master));
  return 0;
}
