// scenario: a loopback TCP server and client in one process, nonblocking,
// driven by poll: connect (EINPROGRESS), accept4, 256 KiB each way,
// SO_ERROR, getsockname/getpeername, shutdown(SHUT_WR) and EOF.
#include "scenario.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#define TOTAL (256 * 1024)

static int make_nonblock(int fd) {
  SYS(fcntl(fd, F_SETFL, SYS(fcntl(fd, F_GETFL)) | O_NONBLOCK));
  return fd;
}

int main(void) {
  int ls = SYS(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0));
  int one = 1;
  SYS(setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one));
  struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = 0};
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  SYS(bind(ls, (struct sockaddr*)&addr, sizeof addr));
  SYS(listen(ls, 4));
  socklen_t alen = sizeof addr;
  SYS(getsockname(ls, (struct sockaddr*)&addr, &alen));
  nd("listening on port %d\n", ntohs(addr.sin_port));

  int c = make_nonblock(SYS(socket(AF_INET, SOCK_STREAM, 0)));
  int r = connect(c, (struct sockaddr*)&addr, sizeof addr);
  printf("connect: %s\n", r == 0 ? "immediate" : errname(errno));
  CHECK(r == 0 || errno == EINPROGRESS);

  struct pollfd pl = {.fd = ls, .events = POLLIN};
  CHECK(SYS(poll(&pl, 1, 5000)) == 1);
  struct sockaddr_in peer;
  socklen_t plen = sizeof peer;
  int s = SYS(accept4(ls, (struct sockaddr*)&peer, &plen, SOCK_NONBLOCK | SOCK_CLOEXEC));
  struct pollfd pc = {.fd = c, .events = POLLOUT};
  CHECK(SYS(poll(&pc, 1, 5000)) == 1);
  int err = -1;
  socklen_t elen = sizeof err;
  SYS(getsockopt(c, SOL_SOCKET, SO_ERROR, &err, &elen));
  printf("SO_ERROR after connect: %d\n", err);
  struct sockaddr_in local, remote;
  socklen_t l1 = sizeof local, l2 = sizeof remote;
  SYS(getsockname(c, (struct sockaddr*)&local, &l1));
  SYS(getpeername(s, (struct sockaddr*)&remote, &l2));
  printf("accepted peer is the client: %s\n",
         local.sin_port == remote.sin_port && local.sin_port == peer.sin_port ? "yes" : "no");
  nd("client port %d\n", ntohs(local.sin_port));
  SYS(setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one));

  static unsigned char out_c[TOTAL], out_s[TOTAL], in_c[TOTAL], in_s[TOTAL];
  uint64_t seed = 99;
  for (int i = 0; i < TOTAL; i++) {
    out_c[i] = (unsigned char)xorshift(&seed);
    out_s[i] = (unsigned char)(out_c[i] ^ 0x5a);
  }
  size_t sent_c = 0, sent_s = 0, got_c = 0, got_s = 0;
  int eof_c = 0, eof_s = 0, shut_c = 0, shut_s = 0;
  unsigned long polls = 0;
  while (!eof_c || !eof_s) {
    struct pollfd fds[2] = {{.fd = c, .events = POLLIN}, {.fd = s, .events = POLLIN}};
    if (sent_c < TOTAL) fds[0].events |= POLLOUT;
    if (sent_s < TOTAL) fds[1].events |= POLLOUT;
    CHECK(SYS(poll(fds, 2, 5000)) > 0);
    polls++;
    if ((fds[0].revents & POLLOUT) && sent_c < TOTAL) {
      ssize_t n = send(c, out_c + sent_c, TOTAL - sent_c, 0);
      if (n > 0) sent_c += n;
    }
    if ((fds[1].revents & POLLOUT) && sent_s < TOTAL) {
      ssize_t n = send(s, out_s + sent_s, TOTAL - sent_s, 0);
      if (n > 0) sent_s += n;
    }
    if (fds[0].revents & (POLLIN | POLLHUP)) {
      ssize_t n = recv(c, in_c + got_c, TOTAL - got_c + 1, 0);
      if (n == 0) eof_c = 1;
      if (n > 0) got_c += n;
    }
    if (fds[1].revents & (POLLIN | POLLHUP)) {
      ssize_t n = recv(s, in_s + got_s, TOTAL - got_s + 1, 0);
      if (n == 0) eof_s = 1;
      if (n > 0) got_s += n;
    }
    if (sent_c == TOTAL && !shut_c) SYS(shutdown(c, SHUT_WR)), shut_c = 1;
    if (sent_s == TOTAL && !shut_s) SYS(shutdown(s, SHUT_WR)), shut_s = 1;
  }
  printf("server got %zu bytes, intact: %s\n", got_s, memcmp(in_s, out_c, TOTAL) == 0 ? "yes" : "no");
  printf("client got %zu bytes, intact: %s\n", got_c, memcmp(in_c, out_s, TOTAL) == 0 ? "yes" : "no");
  nd("poll rounds %lu\n", polls);
  errno = 0;
  CHECK(send(c, "x", 1, MSG_NOSIGNAL) == -1);
  printf("send after SHUT_WR: %s\n", errname(errno));
  SYS(close(s));
  SYS(close(c));

  // Connecting to the now closed listening port is refused.
  SYS(close(ls));
  int c2 = SYS(socket(AF_INET, SOCK_STREAM, 0));
  errno = 0;
  CHECK(connect(c2, (struct sockaddr*)&addr, sizeof addr) == -1);
  printf("connect to closed port: %s\n", errname(errno));
  SYS(close(c2));
  return 0;
}
