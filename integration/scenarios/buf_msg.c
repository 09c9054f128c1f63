// scenario: sendmsg and recvmsg without ancillary data through syscall
// buffering: a ping-pong over a stream socketpair with two threads (each
// recvmsg may wait: the desched event) scattering into three buffers;
// datagrams between two bound unix sockets, received with the sender's
// address (msg_name, also into room too small for it), truncated
// (MSG_TRUNC in msg_flags), peeked, and EAGAIN on an empty socket. What
// recvmsg wrote (data, address, msg_namelen, msg_flags, msg_controllen) is
// hashed. Then the traced cases: a descriptor passed with SCM_RIGHTS (a
// msghdr with ancillary data), MSG_WAITALL, and a bad msghdr.
// requires: threads
// expect-buffered: 800
#define _GNU_SOURCE
#include "thread_util.h"

#include <sys/socket.h>
#include <sys/un.h>

#define ROUNDS 300

static int socks[2];

static uint64_t hash_msg(const struct msghdr* m, ssize_t n, uint64_t h) {
  h = fnv1a(&n, sizeof n, h);
  h = fnv1a(&m->msg_namelen, sizeof m->msg_namelen, h);
  h = fnv1a(&m->msg_flags, sizeof m->msg_flags, h);
  h = fnv1a(&m->msg_controllen, sizeof m->msg_controllen, h);
  for (size_t i = 0; i < m->msg_iovlen && n > 0; i++) {
    size_t take = m->msg_iov[i].iov_len < (size_t)n ? m->msg_iov[i].iov_len : (size_t)n;
    h = fnv1a(m->msg_iov[i].iov_base, take, h);
    n -= (ssize_t)take;
  }
  return h;
}

static void* echo(void* arg) {
  (void)arg;
  char a[5], b[20], c[39];
  for (int i = 0; i < ROUNDS; i++) {
    struct iovec iov[3] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = 3};
    CHECK(SYS(recvmsg(socks[1], &m, 0)) == 64);
    for (size_t j = 0; j < sizeof c; j++) c[j] = (char)(c[j] ^ 0x21);
    CHECK(SYS(sendmsg(socks[1], &m, 0)) == 64);
  }
  return NULL;
}

static int bound_socket(const char* path, struct sockaddr_un* addr) {
  int s = SYS(socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0));
  memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  strcpy(addr->sun_path, path);
  unlink(path);
  SYS(bind(s, (struct sockaddr*)addr, sizeof *addr));
  return s;
}

int main(void) {
  // 1. Ping-pong over a stream socketpair.
  SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, socks));
  pthread_t t;
  PCHECK(pthread_create(&t, NULL, echo, NULL));
  uint64_t h = FNV_INIT;
  char out[64], back[64];
  for (int i = 0; i < ROUNDS; i++) {
    for (int j = 0; j < 64; j++) out[j] = (char)(i + j * 3);
    struct iovec oi[2] = {{out, 10}, {out + 10, 54}};
    struct msghdr om = {.msg_iov = oi, .msg_iovlen = 2};
    CHECK(SYS(sendmsg(socks[0], &om, 0)) == 64);
    struct iovec bi[2] = {{back, 32}, {back + 32, 32}};
    struct msghdr bm = {.msg_iov = bi, .msg_iovlen = 2};
    ssize_t got = 0;
    while (got < 64) {  // a stream may come in pieces
      bi[0] = (struct iovec){back + got, (size_t)(64 - got)};
      bm.msg_iovlen = 1;
      got += SYS(recvmsg(socks[0], &bm, 0));
    }
    h = fnv1a(back, sizeof back, h);
  }
  PCHECK(pthread_join(t, NULL));
  printf("stream: %d rounds, hash %016llx\n", ROUNDS, (unsigned long long)h);

  // 2. Datagrams between two bound sockets, with the sender's address.
  struct sockaddr_un sa, sb;
  int a = bound_socket("sock-a", &sa);
  int b = bound_socket("sock-b", &sb);
  h = FNV_INIT;
  for (int i = 0; i < 200; i++) {
    char msg[48];
    int len = snprintf(msg, sizeof msg, "datagram %d from a", i);
    struct iovec oi = {msg, (size_t)len};
    struct msghdr om = {.msg_name = &sb, .msg_namelen = sizeof sb, .msg_iov = &oi, .msg_iovlen = 1};
    CHECK(SYS(sendmsg(a, &om, 0)) == len);
    struct sockaddr_un from;
    memset(&from, 0x5a, sizeof from);
    char buf[64];
    memset(buf, 0, sizeof buf);
    struct iovec bi = {buf, i % 3 == 0 ? 8 : sizeof buf};  // every third is truncated
    // Room for the whole address, or (every fourth) for 6 bytes of it.
    struct msghdr bm = {.msg_name = &from, .msg_namelen = i % 4 == 0 ? 6 : sizeof from, .msg_iov = &bi, .msg_iovlen = 1};
    ssize_t n = SYS(recvmsg(b, &bm, i % 5 == 0 ? MSG_PEEK : 0));
    h = hash_msg(&bm, n, h);
    h = fnv1a(&from, sizeof from, h);
    if (i % 5 == 0) SYS(recv(b, buf, sizeof buf, 0));  // the peeked one
    if (i == 0 || i == 3 || i == 4) {
      int shown = i % 4 == 0 ? 4 : (int)strnlen(from.sun_path, sizeof from.sun_path);
      printf("datagram %d: %zd bytes, namelen %u, flags %#x, from '%.*s'\n", i, n, (unsigned)bm.msg_namelen,
             (unsigned)bm.msg_flags, shown, from.sun_path);
    }
  }
  printf("datagrams: hash %016llx\n", (unsigned long long)h);
  char buf[16];
  struct iovec bi = {buf, sizeof buf};
  struct msghdr bm = {.msg_iov = &bi, .msg_iovlen = 1};
  errno = 0;
  ssize_t n = recvmsg(b, &bm, MSG_DONTWAIT);
  printf("empty socket: %zd %s\n", n, errname(errno));

  // 3. Traced: SCM_RIGHTS, MSG_WAITALL, a bad msghdr.
  union {
    struct cmsghdr align;
    char space[CMSG_SPACE(sizeof(int))];
  } ctl;
  memset(&ctl, 0, sizeof ctl);
  struct iovec oi = {(void*)"fd", 2};
  struct msghdr om = {.msg_name = &sb, .msg_namelen = sizeof sb, .msg_iov = &oi, .msg_iovlen = 1,
                      .msg_control = ctl.space, .msg_controllen = sizeof ctl.space};
  struct cmsghdr* cm = CMSG_FIRSTHDR(&om);
  cm->cmsg_level = SOL_SOCKET;
  cm->cmsg_type = SCM_RIGHTS;
  cm->cmsg_len = CMSG_LEN(sizeof(int));
  int one = 1;
  memcpy(CMSG_DATA(cm), &one, sizeof one);
  CHECK(SYS(sendmsg(a, &om, 0)) == 2);
  memset(&ctl, 0, sizeof ctl);
  bm = (struct msghdr){.msg_iov = &bi, .msg_iovlen = 1, .msg_control = ctl.space, .msg_controllen = sizeof ctl.space};
  n = SYS(recvmsg(b, &bm, 0));
  cm = CMSG_FIRSTHDR(&bm);
  int passed = -1;
  if (cm && cm->cmsg_type == SCM_RIGHTS) memcpy(&passed, CMSG_DATA(cm), sizeof passed);
  printf("SCM_RIGHTS: %zd bytes, a descriptor: %s\n", n, passed > 2 ? "yes" : "no");
  nd("passed descriptor %d\n", passed);
  SYS(close(passed));
  SYS(send(socks[1], "waitall!", 8, 0));
  bi = (struct iovec){buf, 8};
  bm = (struct msghdr){.msg_iov = &bi, .msg_iovlen = 1};
  n = SYS(recvmsg(socks[0], &bm, MSG_WAITALL));
  printf("MSG_WAITALL: %zd '%.8s'\n", n, buf);
  errno = 0;
  struct msghdr* volatile unmapped = (struct msghdr*)16;
  n = recvmsg(socks[0], unmapped, MSG_DONTWAIT);
  printf("bad msghdr: %zd %s\n", n, errname(errno));
  SYS(close(a));
  SYS(close(b));
  unlink("sock-a");
  unlink("sock-b");
  return 0;
}
