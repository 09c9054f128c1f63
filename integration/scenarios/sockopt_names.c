// scenario: getsockopt/setsockopt round trips (SO_RCVBUF, SO_SNDBUF,
// SO_KEEPALIVE, SO_LINGER, SO_RCVTIMEO, TCP_NODELAY, TCP_KEEPIDLE, SO_TYPE,
// SO_DOMAIN, SO_ACCEPTCONN), getsockname/getpeername on TCP and AF_UNIX
// sockets, shutdown in each direction, and the errors for unconnected sockets.
#include "scenario.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

static int geti(int fd, int level, int opt) {
  int v = -1;
  socklen_t l = sizeof v;
  SYS(getsockopt(fd, level, opt, &v, &l));
  CHECK(l == sizeof v);
  return v;
}

int main(void) {
  int s = SYS(socket(AF_INET, SOCK_STREAM, 0));
  printf("SO_TYPE stream: %d, SO_DOMAIN inet: %d\n", geti(s, SOL_SOCKET, SO_TYPE) == SOCK_STREAM,
         geti(s, SOL_SOCKET, SO_DOMAIN) == AF_INET);
  int v = 65536;
  SYS(setsockopt(s, SOL_SOCKET, SO_RCVBUF, &v, sizeof v));
  printf("SO_RCVBUF after setting 65536: %d\n", geti(s, SOL_SOCKET, SO_RCVBUF));
  v = 32768;
  SYS(setsockopt(s, SOL_SOCKET, SO_SNDBUF, &v, sizeof v));
  printf("SO_SNDBUF after setting 32768: %d\n", geti(s, SOL_SOCKET, SO_SNDBUF));
  v = 1;
  SYS(setsockopt(s, SOL_SOCKET, SO_KEEPALIVE, &v, sizeof v));
  SYS(setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &v, sizeof v));
  v = 77;
  SYS(setsockopt(s, IPPROTO_TCP, TCP_KEEPIDLE, &v, sizeof v));
  printf("SO_KEEPALIVE %d TCP_NODELAY %d TCP_KEEPIDLE %d\n", geti(s, SOL_SOCKET, SO_KEEPALIVE),
         geti(s, IPPROTO_TCP, TCP_NODELAY), geti(s, IPPROTO_TCP, TCP_KEEPIDLE));
  struct linger lg = {1, 5}, lg2;
  SYS(setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg));
  socklen_t l = sizeof lg2;
  SYS(getsockopt(s, SOL_SOCKET, SO_LINGER, &lg2, &l));
  printf("SO_LINGER %d %d\n", lg2.l_onoff, lg2.l_linger);
  struct timeval tv = {2, 500000}, tv2;
  SYS(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv));
  l = sizeof tv2;
  SYS(getsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv2, &l));
  printf("SO_RCVTIMEO %ld.%06ld\n", (long)tv2.tv_sec, (long)tv2.tv_usec);
  char small[2];
  l = sizeof small;
  SYS(getsockopt(s, SOL_SOCKET, SO_TYPE, small, &l));
  printf("getsockopt with a 2-byte buffer returns length %u\n", (unsigned)l);
  errno = 0;
  CHECK(setsockopt(s, SOL_SOCKET, 9999, &v, sizeof v) == -1);
  printf("unknown option: %s\n", errno == ENOPROTOOPT ? "ENOPROTOOPT" : errname(errno));

  struct sockaddr_in a;
  socklen_t al = sizeof a;
  errno = 0;
  CHECK(getpeername(s, (struct sockaddr*)&a, &al) == -1);
  printf("getpeername unconnected: %s\n", errname(errno));
  // (On an unconnected socket shutdown fails but still marks the socket
  // shut down, so use a throwaway socket.)
  int u = SYS(socket(AF_INET, SOCK_STREAM, 0));
  errno = 0;
  CHECK(shutdown(u, SHUT_RDWR) == -1);
  printf("shutdown unconnected: %s\n", errname(errno));
  SYS(close(u));

  int ls = SYS(socket(AF_INET, SOCK_STREAM, 0));
  struct sockaddr_in addr = {.sin_family = AF_INET};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  SYS(bind(ls, (struct sockaddr*)&addr, sizeof addr));
  SYS(listen(ls, 1));
  printf("SO_ACCEPTCONN listening %d, plain %d\n", geti(ls, SOL_SOCKET, SO_ACCEPTCONN),
         geti(s, SOL_SOCKET, SO_ACCEPTCONN));
  al = sizeof addr;
  SYS(getsockname(ls, (struct sockaddr*)&addr, &al));
  SYS(connect(s, (struct sockaddr*)&addr, sizeof addr));
  int c = SYS(accept(ls, NULL, NULL));
  struct sockaddr_in n1, n2;
  socklen_t l1 = sizeof n1, l2 = sizeof n2;
  SYS(getsockname(s, (struct sockaddr*)&n1, &l1));
  SYS(getpeername(c, (struct sockaddr*)&n2, &l2));
  printf("names agree: %s, address %s, length %u\n",
         n1.sin_port == n2.sin_port && n1.sin_addr.s_addr == n2.sin_addr.s_addr ? "yes" : "no",
         inet_ntoa(n2.sin_addr), (unsigned)l2);
  nd("ports %d -> %d\n", ntohs(n1.sin_port), ntohs(addr.sin_port));
  SYS(shutdown(s, SHUT_WR));
  char buf[8];
  printf("server reads EOF after SHUT_WR: %zd\n", SYS(recv(c, buf, sizeof buf, 0)));
  SYS(send(c, "back", 4, 0));
  ssize_t r = SYS(recv(s, buf, sizeof buf, 0));
  printf("half-closed client still reads: %.*s\n", (int)r, buf);
  SYS(shutdown(c, SHUT_RD));
  SYS(close(c));
  SYS(close(s));
  SYS(close(ls));

  // AF_UNIX in the abstract namespace.
  int us = SYS(socket(AF_UNIX, SOCK_STREAM, 0));
  struct sockaddr_un ua = {.sun_family = AF_UNIX};
  snprintf(ua.sun_path + 1, sizeof ua.sun_path - 1, "backstep-scn-%d", getpid());
  socklen_t ul = offsetof(struct sockaddr_un, sun_path) + 1 + strlen(ua.sun_path + 1);
  SYS(bind(us, (struct sockaddr*)&ua, ul));
  SYS(listen(us, 1));
  int uc = SYS(socket(AF_UNIX, SOCK_STREAM, 0));
  SYS(connect(uc, (struct sockaddr*)&ua, ul));
  struct sockaddr_un got;
  socklen_t gl = sizeof got;
  SYS(getpeername(uc, (struct sockaddr*)&got, &gl));
  printf("unix peer name abstract: %s, same length: %s\n", got.sun_path[0] == 0 ? "yes" : "no",
         gl == ul ? "yes" : "no");
  nd("abstract name %s\n", got.sun_path + 1);
  SYS(close(uc));
  SYS(close(us));
  return 0;
}
