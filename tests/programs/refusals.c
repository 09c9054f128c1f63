// The program behind record_refusal_test: argv[1] names one call that the
// recorder must refuse (or, for the "-fails" cases, record as a failure).
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int ethtool_link(const char* ifname) {
  int s = socket(AF_INET, SOCK_DGRAM, 0);
  struct ethtool_value link = {.cmd = ETHTOOL_GLINK};
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strncpy(ifr.ifr_name, ifname, sizeof ifr.ifr_name - 1);
  ifr.ifr_data = (char*)&link;
  return ioctl(s, SIOCETHTOOL, &ifr);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* what = argv[1];
  if (strcmp(what, "ethtool") == 0) {
    printf("ethtool on lo: %d\n", ethtool_link("lo"));
  } else if (strcmp(what, "ethtool-fails") == 0) {
    printf("ethtool on a missing interface: %d\n", ethtool_link("no-such-if0"));
  } else if (strcmp(what, "set-mm") == 0) {
    unsigned int size = 0;
    int r = prctl(PR_SET_MM, PR_SET_MM_MAP_SIZE, &size, 0, 0);
    printf("PR_SET_MM_MAP_SIZE: %d, %u\n", r, size);
    printf("PR_SET_MM_ARG_START: %d\n", prctl(PR_SET_MM, PR_SET_MM_ARG_START, 0, 0, 0));
    printf("PR_SET_MM_START_BRK: %d\n", prctl(PR_SET_MM, PR_SET_MM_START_BRK, 0, 0, 0));
  } else if (strcmp(what, "unknown-fails") == 0) {
    printf("prctl 999: %d\n", prctl(999, 0, 0, 0, 0));
    printf("fcntl 9999: %d\n", fcntl(0, 9999, 0));
    printf("ioctl 0x54ff: %d\n", ioctl(0, 0x54ff, 0));
  } else {
    return 2;
  }
  return 0;
}
