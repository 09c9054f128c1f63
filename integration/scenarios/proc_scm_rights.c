// scenario: SCM_RIGHTS between processes: the child opens a file and a
// pipe and passes the descriptors to the parent over a unix socket; the
// parent reads the file through its copy, and reads what the child writes
// into the pipe afterwards. Then the parent passes a descriptor back.
// input: data.txt = file contents seen through a passed descriptor\n
#include "proc_util.h"

#include <fcntl.h>
#include <sys/socket.h>

static void send_fds(int sock, const int* fds, int n, const char* tag) {
  char cbuf[CMSG_SPACE(sizeof(int) * 4)];
  memset(cbuf, 0, sizeof cbuf);
  struct iovec iov = {(void*)tag, strlen(tag)};
  struct msghdr m = {0};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = cbuf;
  m.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n);
  struct cmsghdr* c = CMSG_FIRSTHDR(&m);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
  memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)n);
  SYS(sendmsg(sock, &m, 0));
}

static int recv_fds(int sock, int* fds, char* tag, size_t tagsize) {
  char cbuf[CMSG_SPACE(sizeof(int) * 4)];
  struct iovec iov = {tag, tagsize - 1};
  struct msghdr m = {0};
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = cbuf;
  m.msg_controllen = sizeof cbuf;
  ssize_t r = SYS(recvmsg(sock, &m, 0));
  tag[r] = 0;
  int n = 0;
  for (struct cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
    if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
      n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      memcpy(fds, CMSG_DATA(c), sizeof(int) * (size_t)n);
    }
  }
  return n;
}

int main(void) {
  int sv[2];
  SYS(socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
  pid_t pid = proc_fork();
  if (pid == 0) {
    close(sv[0]);
    int file = open("data.txt", O_RDONLY);
    int p[2];
    if (file < 0 || pipe(p) != 0) _exit(3);
    int fds[2] = {file, p[0]};
    send_fds(sv[1], fds, 2, "two");
    close(file);
    close(p[0]);
    const char msg[] = "written by the child after passing the read end\n";
    write_full(p[1], msg, sizeof msg - 1);
    close(p[1]);
    // Receive one back: the parent's end of a new pipe.
    int back[4];
    char tag[16];
    if (recv_fds(sv[1], back, tag, sizeof tag) != 1) _exit(4);
    child_say("child got '%s' back\n", tag);
    const char reply[] = "reply through the returned descriptor\n";
    write_full(back[0], reply, sizeof reply - 1);
    _exit(0);
  }
  close(sv[1]);
  int fds[4];
  char tag[16];
  int n = recv_fds(sv[0], fds, tag, sizeof tag);
  printf("received %d descriptors tagged '%s'\n", n, tag);
  CHECK(n == 2);
  char buf[256];
  ssize_t r = SYS(read(fds[0], buf, sizeof buf - 1));
  buf[r] = 0;
  printf("file: %s", buf);
  size_t got = read_full(fds[1], buf, sizeof buf - 1);
  buf[got] = 0;
  printf("pipe: %s", buf);
  int p[2];
  SYS(pipe(p));
  send_fds(sv[0], &p[1], 1, "pipe-w");
  close(p[1]);
  got = read_full(p[0], buf, sizeof buf - 1);
  buf[got] = 0;
  printf("back: %s", buf);
  printf("child: %s\n", status_text(wait_for(pid)));
  return 0;
}
