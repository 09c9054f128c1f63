// scenario: ioctls on devices a root program may open: a TAP interface
// (TUNSETIFF writes the name it chose back, though _IOW; TUNGETIFF writes a
// whole struct ifreq, though _IOR of an int), loop-control's free device,
// a pty peer opened with TIOCGPTPEER, the older SIOCGIF* queries on lo, and
// the namespace files' ioctls (NS_GET_OWNER_UID is _IO but writes a uid).
// Without the devices or the privilege, the errors are printed instead.
#include "scenario.h"

#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/loop.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

static void show(const char* what, int r) { printf("%s: %s\n", what, r < 0 ? errname(errno) : "ok"); }

int main(void) {
  int tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
  if (tun < 0) {
    printf("/dev/net/tun: %s\n", errname(errno));
  } else {
    struct ifreq req = {0};
    req.ifr_flags = IFF_TAP | IFF_NO_PI;
    errno = 0;
    int r = ioctl(tun, TUNSETIFF, &req);
    show("TUNSETIFF", r);
    if (r == 0) {
      printf("name given: %s\n", strncmp(req.ifr_name, "tap", 3) == 0 ? "tap*" : "other");
      nd("interface %s\n", req.ifr_name);
      struct ifreq back = {0};
      show("TUNGETIFF", ioctl(tun, TUNGETIFF, &back));
      printf("same name: %d, flags %#x\n", strcmp(back.ifr_name, req.ifr_name) == 0, back.ifr_flags & (IFF_TAP | IFF_NO_PI));
      unsigned features = 0;
      show("TUNGETFEATURES", ioctl(tun, TUNGETFEATURES, &features));
      printf("TAP supported: %d\n", !!(features & IFF_TAP));
    }
    close(tun);
  }
  int control = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
  if (control < 0) {
    printf("/dev/loop-control: %s\n", errname(errno));
  } else {
    int n = ioctl(control, LOOP_CTL_GET_FREE);
    printf("LOOP_CTL_GET_FREE: %s\n", n < 0 ? errname(errno) : "a device number");
    nd("free loop device %d\n", n);
    close(control);
  }
  int master = SYS(posix_openpt(O_RDWR | O_NOCTTY));
  errno = 0;
  int peer = ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY);
  printf("TIOCGPTPEER while locked: %d %s\n", peer, errno == EIO ? "EIO" : errname(errno));
  SYS(unlockpt(master));
  peer = SYS(ioctl(master, TIOCGPTPEER, O_RDWR | O_NOCTTY));
  int excl = -1;
  show("TIOCEXCL", ioctl(peer, TIOCEXCL));
  show("TIOCGEXCL", ioctl(peer, TIOCGEXCL, &excl));
  printf("exclusive: %d\n", excl);
  SYS(write(master, "typed\n", 6));
  char line[16] = {0};
  ssize_t n = SYS(read(peer, line, sizeof line - 1));
  printf("peer read %zd: %s", n, line);
  int s = SYS(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  struct ifreq lo = {0};
  strcpy(lo.ifr_name, "lo");
  show("SIOCGIFBRDADDR", ioctl(s, SIOCGIFBRDADDR, &lo));
  show("SIOCGIFDSTADDR", ioctl(s, SIOCGIFDSTADDR, &lo));
  show("SIOCGIFMETRIC", ioctl(s, SIOCGIFMETRIC, &lo));
  printf("metric %d\n", lo.ifr_metric);
  show("SIOCGIFMAP", ioctl(s, SIOCGIFMAP, &lo));
  show("SIOCGIFTXQLEN", ioctl(s, SIOCGIFTXQLEN, &lo));
  nd("txqueuelen %d\n", lo.ifr_qlen);
  int userns = SYS(open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC));
  uid_t owner = 12345;
  show("NS_GET_OWNER_UID", ioctl(userns, NS_GET_OWNER_UID, &owner));
  printf("owner is our uid: %d\n", owner == getuid());
  int netns = SYS(open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC));
  printf("NS_GET_NSTYPE: %#x\n", ioctl(netns, NS_GET_NSTYPE));
  int owning = ioctl(netns, NS_GET_USERNS);
  printf("NS_GET_USERNS: %s\n", owning < 0 ? errname(errno) : "a descriptor");
  return 0;
}
