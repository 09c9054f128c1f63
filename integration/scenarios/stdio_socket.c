// scenario: stdout and stderr are sockets (as under some service managers):
// output sent with send, sendto, sendmsg and sendmmsg, on fds 1 and 2 and on
// a dup of stdout, is re-emitted by replay like write's.
// output: sockets
#include "scenario.h"

#include <sys/socket.h>
#include <sys/uio.h>

static void sent(ssize_t got, const char* s) { CHECK(got == (ssize_t)strlen(s)); }

int main(void) {
  const char* a = "stdout through send\n";
  sent(send(1, a, strlen(a), 0), a);
  const char* b = "stderr through sendto\n";
  sent(sendto(2, b, strlen(b), 0, NULL, 0), b);
  int copy = SYS(dup(1));
  struct iovec iov[2] = {{"stdout copy through ", 20}, {"sendmsg\n", 8}};
  struct msghdr msg = {.msg_iov = iov, .msg_iovlen = 2};
  CHECK(sendmsg(copy, &msg, 0) == 28);
  struct iovec one = {"stderr through sendmmsg, ", 25}, two = {"two messages\n", 13};
  struct mmsghdr m[2] = {{.msg_hdr = {.msg_iov = &one, .msg_iovlen = 1}},
                         {.msg_hdr = {.msg_iov = &two, .msg_iovlen = 1}}};
  CHECK(sendmmsg(2, m, 2, 0) == 2);
  printf("msg_len: %u %u\n", m[0].msg_len, m[1].msg_len);
  return 0;
}
