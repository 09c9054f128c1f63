// scenario: UDP over loopback: sendto/recvfrom, sendmsg/recvmsg with iovecs
// and IP_PKTINFO control data, MSG_PEEK, MSG_TRUNC, a connected UDP socket,
// sendmmsg/recvmmsg, and a datagram carrying the current time.
#include "scenario.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

int main(void) {
  int a = SYS(socket(AF_INET, SOCK_DGRAM, 0));
  int b = SYS(socket(AF_INET, SOCK_DGRAM, 0));
  struct sockaddr_in aa = {.sin_family = AF_INET}, ba = {.sin_family = AF_INET};
  aa.sin_addr.s_addr = ba.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  SYS(bind(a, (struct sockaddr*)&aa, sizeof aa));
  SYS(bind(b, (struct sockaddr*)&ba, sizeof ba));
  socklen_t len = sizeof aa;
  SYS(getsockname(a, (struct sockaddr*)&aa, &len));
  len = sizeof ba;
  SYS(getsockname(b, (struct sockaddr*)&ba, &len));
  nd("ports %d %d\n", ntohs(aa.sin_port), ntohs(ba.sin_port));

  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  char msg[64];
  int mlen = snprintf(msg, sizeof msg, "now=%lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
  SYS(sendto(a, msg, mlen, 0, (struct sockaddr*)&ba, sizeof ba));
  char buf[256];
  struct sockaddr_in from;
  socklen_t flen = sizeof from;
  ssize_t n = SYS(recvfrom(b, buf, 4, MSG_PEEK, (struct sockaddr*)&from, &flen));
  printf("peek 4: %.*s\n", (int)n, buf);
  n = SYS(recvfrom(b, buf, sizeof buf, 0, (struct sockaddr*)&from, &flen));
  printf("datagram intact: %s, from a: %s\n", n == mlen && memcmp(buf, msg, n) == 0 ? "yes" : "no",
         from.sin_port == aa.sin_port ? "yes" : "no");
  nd("datagram: %.*s\n", (int)n, buf);

  int on = 1;
  SYS(setsockopt(b, IPPROTO_IP, IP_PKTINFO, &on, sizeof on));
  struct iovec siov[3] = {{"gather", 6}, {"-", 1}, {"write", 5}};
  struct msghdr sm = {.msg_name = &ba, .msg_namelen = sizeof ba, .msg_iov = siov, .msg_iovlen = 3};
  SYS(sendmsg(a, &sm, 0));
  char p1[4], p2[64];
  struct iovec riov[2] = {{p1, sizeof p1}, {p2, sizeof p2}};
  char ctrl[256];
  struct msghdr rm = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = riov,
                      .msg_iovlen = 2, .msg_control = ctrl, .msg_controllen = sizeof ctrl};
  n = SYS(recvmsg(b, &rm, 0));
  printf("recvmsg scatter %zd: [%.4s][%.*s]\n", n, p1, (int)(n - 4), p2);
  int pktinfo = 0;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&rm); c; c = CMSG_NXTHDR(&rm, c)) {
    if (c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_PKTINFO) {
      struct in_pktinfo pi;
      memcpy(&pi, CMSG_DATA(c), sizeof pi);
      pktinfo = 1;
      printf("pktinfo dst %s\n", inet_ntoa(pi.ipi_addr));
    }
  }
  printf("got pktinfo: %d\n", pktinfo);

  SYS(sendto(a, "0123456789", 10, 0, (struct sockaddr*)&ba, sizeof ba));
  struct iovec tiov = {buf, 3};
  struct msghdr tm = {.msg_iov = &tiov, .msg_iovlen = 1};
  n = SYS(recvmsg(b, &tm, MSG_TRUNC));
  printf("MSG_TRUNC returns full length %zd, flags truncated: %d\n", n, !!(tm.msg_flags & MSG_TRUNC));

  SYS(connect(a, (struct sockaddr*)&ba, sizeof ba));
  SYS(send(a, "connected", 9, 0));
  n = SYS(recv(b, buf, sizeof buf, 0));
  printf("connected send: %.*s\n", (int)n, buf);

  struct mmsghdr mm[3];
  struct iovec mi[3] = {{"m-one", 5}, {"m-two", 5}, {"m-three", 7}};
  memset(mm, 0, sizeof mm);
  for (int i = 0; i < 3; i++) {
    mm[i].msg_hdr.msg_iov = &mi[i];
    mm[i].msg_hdr.msg_iovlen = 1;
  }
  printf("sendmmsg: %ld\n", SYS(sendmmsg(a, mm, 3, 0)));
  char rb[3][16];
  struct iovec ri[3] = {{rb[0], 16}, {rb[1], 16}, {rb[2], 16}};
  struct mmsghdr rmm[3];
  memset(rmm, 0, sizeof rmm);
  for (int i = 0; i < 3; i++) {
    rmm[i].msg_hdr.msg_iov = &ri[i];
    rmm[i].msg_hdr.msg_iovlen = 1;
  }
  int got = 0;
  while (got < 3) {
    struct timespec to = {2, 0};
    int r = SYS(recvmmsg(b, rmm + got, 3 - got, MSG_WAITFORONE, &to));
    got += r;
  }
  for (int i = 0; i < 3; i++) printf("recvmmsg %d: %.*s\n", i, (int)rmm[i].msg_len, rb[i]);
  errno = 0;
  CHECK(recv(b, buf, sizeof buf, MSG_DONTWAIT) == -1);
  printf("empty: %s\n", errname(errno));
  SYS(close(a));
  SYS(close(b));
  return 0;
}
