// scenario: a socketpair between parent and child: requests and replies
// over SOCK_STREAM (the child squares numbers), then SOCK_SEQPACKET
// messages whose boundaries are kept, and shutdown(SHUT_WR) seen as EOF.
#include "proc_util.h"

#include <sys/socket.h>

int main(void) {
  int sv[2];
  SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  pid_t pid = proc_fork();
  if (pid == 0) {
    close(sv[0]);
    long v;
    while (read_full(sv[1], &v, sizeof v) == sizeof v) {
      long sq = v * v;
      write_full(sv[1], &sq, sizeof sq);
    }
    _exit(0);
  }
  close(sv[1]);
  long sum = 0;
  for (long i = 1; i <= 200; i++) {
    write_full(sv[0], &i, sizeof i);
    long r;
    CHECK(read_full(sv[0], &r, sizeof r) == sizeof r);
    CHECK(r == i * i);
    sum += r;
  }
  SYS(shutdown(sv[0], SHUT_WR));
  printf("sum of squares 1..200: %ld\n", sum);
  printf("stream child: %s\n", status_text(wait_for(pid)));
  close(sv[0]);

  SYS(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv));
  pid = proc_fork();
  if (pid == 0) {
    close(sv[0]);
    for (int i = 1; i <= 5; i++) {
      char msg[64];
      memset(msg, 'a' + i, sizeof msg);
      SYS(send(sv[1], msg, (size_t)i * 10, 0));
    }
    _exit(0);
  }
  close(sv[1]);
  char buf[128];
  for (;;) {
    ssize_t r = recv(sv[0], buf, sizeof buf, 0);
    CHECK(r >= 0);
    if (r == 0) break;
    printf("packet of %zd bytes of '%c'\n", r, buf[0]);
  }
  printf("seqpacket child: %s\n", status_text(wait_for(pid)));
  return 0;
}
