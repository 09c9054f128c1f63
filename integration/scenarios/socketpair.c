// scenario: AF_UNIX socketpairs: SOCK_STREAM send/recv with MSG_PEEK and
// MSG_DONTWAIT, SOCK_DGRAM and SOCK_SEQPACKET message boundaries, SCM_RIGHTS
// (passing a pipe's read end), SCM_CREDENTIALS, shutdown.
#include "scenario.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/uio.h>

int main(void) {
  int sv[2];
  SYS(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv));
  SYS(send(sv[0], "stream-data", 11, 0));
  char buf[256];
  ssize_t n = SYS(recv(sv[1], buf, 6, MSG_PEEK));
  printf("peek: %.*s\n", (int)n, buf);
  n = SYS(recv(sv[1], buf, sizeof buf, 0));
  printf("recv: %.*s\n", (int)n, buf);
  errno = 0;
  CHECK(recv(sv[1], buf, sizeof buf, MSG_DONTWAIT) == -1);
  printf("empty MSG_DONTWAIT: %s\n", errname(errno));

  // Pass a pipe's read end over the socket; read through the received fd.
  int p[2];
  SYS(pipe(p));
  SYS(write(p[1], "through a passed fd", 19));
  char cbuf[CMSG_SPACE(sizeof(int))];
  memset(cbuf, 0, sizeof cbuf);
  struct iovec iov = {"F", 1};
  struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                      .msg_controllen = sizeof cbuf};
  struct cmsghdr* cm = CMSG_FIRSTHDR(&mh);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cm), &p[0], sizeof(int));
  SYS(sendmsg(sv[0], &mh, 0));
  SYS(close(p[0]));
  char one;
  char rbuf[CMSG_SPACE(sizeof(int))];
  struct iovec riov = {&one, 1};
  struct msghdr rh = {.msg_iov = &riov, .msg_iovlen = 1, .msg_control = rbuf,
                      .msg_controllen = sizeof rbuf};
  CHECK(SYS(recvmsg(sv[1], &rh, MSG_CMSG_CLOEXEC)) == 1);
  struct cmsghdr* rc = CMSG_FIRSTHDR(&rh);
  CHECK(rc != NULL && rc->cmsg_type == SCM_RIGHTS);
  int got;
  memcpy(&got, CMSG_DATA(rc), sizeof got);
  nd("received fd %d\n", got);
  n = SYS(read(got, buf, sizeof buf));
  printf("read through the received fd: %.*s\n", (int)n, buf);
  printf("received fd has cloexec: %ld\n", SYS(fcntl(got, F_GETFD)));
  SYS(close(got));
  SYS(close(p[1]));

  // Credentials.
  int on = 1;
  SYS(setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof on));
  SYS(send(sv[0], "c", 1, 0));
  char ccbuf[CMSG_SPACE(sizeof(struct ucred))];
  struct msghdr ch = {.msg_iov = &riov, .msg_iovlen = 1, .msg_control = ccbuf,
                      .msg_controllen = sizeof ccbuf};
  SYS(recvmsg(sv[1], &ch, 0));
  struct cmsghdr* cc = CMSG_FIRSTHDR(&ch);
  CHECK(cc != NULL && cc->cmsg_type == SCM_CREDENTIALS);
  struct ucred uc;
  memcpy(&uc, CMSG_DATA(cc), sizeof uc);
  printf("credentials: pid is mine %s, uid is mine %s\n", uc.pid == getpid() ? "yes" : "no",
         uc.uid == getuid() ? "yes" : "no");
  nd("ucred pid %d uid %d gid %d\n", uc.pid, uc.uid, uc.gid);
  struct ucred peer;
  socklen_t plen = sizeof peer;
  SYS(getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &peer, &plen));
  printf("SO_PEERCRED pid is mine: %s\n", peer.pid == getpid() ? "yes" : "no");

  SYS(shutdown(sv[0], SHUT_WR));
  printf("recv after peer shutdown: %zd\n", SYS(recv(sv[1], buf, sizeof buf, 0)));
  SYS(close(sv[0]));
  SYS(close(sv[1]));

  int types[] = {SOCK_DGRAM, SOCK_SEQPACKET};
  const char* names[] = {"dgram", "seqpacket"};
  for (int t = 0; t < 2; t++) {
    SYS(socketpair(AF_UNIX, types[t], 0, sv));
    SYS(send(sv[0], "first", 5, 0));
    SYS(send(sv[0], "second message", 14, 0));
    n = SYS(recv(sv[1], buf, 3, 0));
    printf("%s: truncated first: %.*s\n", names[t], (int)n, buf);
    n = SYS(recv(sv[1], buf, sizeof buf, 0));
    printf("%s: next whole message: %.*s\n", names[t], (int)n, buf);
    SYS(close(sv[0]));
    SYS(close(sv[1]));
  }
  return 0;
}
