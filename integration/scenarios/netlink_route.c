// scenario: rtnetlink: a RTM_GETLINK dump read with recvmsg until
// NLMSG_DONE (several datagrams of variable-length messages), the loopback
// interface's attributes, then the libc helpers built on netlink and
// ioctls (if_nametoindex, if_indextoname, if_nameindex).
#include "scenario.h"

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <sys/socket.h>

int main(void) {
  int s = SYS(socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE));
  struct sockaddr_nl local = {.nl_family = AF_NETLINK};
  SYS(bind(s, (struct sockaddr*)&local, sizeof local));
  socklen_t len = sizeof local;
  SYS(getsockname(s, (struct sockaddr*)&local, &len));
  printf("bound, pid set: %d\n", local.nl_pid != 0);
  struct {
    struct nlmsghdr h;
    struct ifinfomsg i;
  } req = {0};
  req.h.nlmsg_len = sizeof req;
  req.h.nlmsg_type = RTM_GETLINK;
  req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.h.nlmsg_seq = 1;
  req.i.ifi_family = AF_UNSPEC;
  SYS(send(s, &req, sizeof req, 0));
  char buf[8192] __attribute__((aligned(4)));
  int done = 0, links = 0, found_lo = 0, datagrams = 0;
  unsigned lo_mtu = 0, lo_index = 0;
  while (!done) {
    struct iovec iov = {buf, sizeof buf};
    struct sockaddr_nl from;
    struct msghdr m = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov, .msg_iovlen = 1};
    ssize_t n = SYS(recvmsg(s, &m, 0));
    datagrams++;
    CHECK(from.nl_pid == 0);  // from the kernel
    for (struct nlmsghdr* h = (struct nlmsghdr*)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_type == NLMSG_DONE) {
        done = 1;
        break;
      }
      CHECK(h->nlmsg_type == RTM_NEWLINK && h->nlmsg_seq == 1);
      links++;
      struct ifinfomsg* ifi = NLMSG_DATA(h);
      int alen = IFLA_PAYLOAD(h);
      int is_lo = 0;
      unsigned mtu = 0;
      for (struct rtattr* a = IFLA_RTA(ifi); RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
        if (a->rta_type == IFLA_IFNAME && strcmp(RTA_DATA(a), "lo") == 0) is_lo = 1;
        if (a->rta_type == IFLA_MTU) memcpy(&mtu, RTA_DATA(a), sizeof mtu);
      }
      if (is_lo) {
        found_lo = 1;
        lo_mtu = mtu;
        lo_index = (unsigned)ifi->ifi_index;
      }
    }
  }
  printf("loopback found: %d\n", found_lo);
  nd("%d links in %d datagrams, lo index %u mtu %u\n", links, datagrams, lo_index, lo_mtu);
  printf("if_nametoindex(lo) matches: %d\n", if_nametoindex("lo") == lo_index);
  char name[IF_NAMESIZE];
  printf("if_indextoname: %s\n", if_indextoname(lo_index, name));
  struct if_nameindex* all = if_nameindex();
  CHECK(all != NULL);
  int listed = 0;
  for (int i = 0; all[i].if_index; i++) listed += strcmp(all[i].if_name, "lo") == 0;
  if_freenameindex(all);
  printf("if_nameindex lists lo: %d\n", listed);
  return 0;
}
