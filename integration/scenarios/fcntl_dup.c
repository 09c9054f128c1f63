// scenario: fcntl F_GETFL/F_SETFL/F_GETFD/F_SETFD/F_DUPFD/F_DUPFD_CLOEXEC,
// record locks (F_SETLK/F_GETLK and OFD locks, where the kernel fills in a
// struct flock), dup/dup2/dup3 and the file offset they share.
// input: data.txt = abcdefghijklmnopqrstuvwxyz\n
#include "scenario.h"

#include <fcntl.h>

int main(void) {
  int fd = SYS(open("data.txt", O_RDWR));
  int fl = SYS(fcntl(fd, F_GETFL));
  printf("accmode rdwr: %d append: %d nonblock: %d\n", (fl & O_ACCMODE) == O_RDWR,
         !!(fl & O_APPEND), !!(fl & O_NONBLOCK));
  SYS(fcntl(fd, F_SETFL, fl | O_APPEND | O_NONBLOCK));
  fl = SYS(fcntl(fd, F_GETFL));
  printf("after F_SETFL append: %d nonblock: %d\n", !!(fl & O_APPEND), !!(fl & O_NONBLOCK));
  SYS(fcntl(fd, F_SETFL, fl & ~(O_APPEND | O_NONBLOCK)));
  printf("F_GETFD: %ld\n", SYS(fcntl(fd, F_GETFD)));
  SYS(fcntl(fd, F_SETFD, FD_CLOEXEC));
  printf("F_GETFD after set: %ld\n", SYS(fcntl(fd, F_GETFD)));

  int d10 = SYS(fcntl(fd, F_DUPFD, 10));
  int d20 = SYS(fcntl(fd, F_DUPFD_CLOEXEC, 20));
  long fl20 = SYS(fcntl(d20, F_GETFD)), fl10 = SYS(fcntl(d10, F_GETFD));
  printf("F_DUPFD >= 10: %d, F_DUPFD_CLOEXEC >= 20: %d cloexec %ld, dup's cloexec %ld\n",
         d10 >= 10, d20 >= 20, fl20, fl10);
  nd("dup fds: %d %d\n", d10, d20);

  char buf[8];
  SYS(read(fd, buf, 3));
  printf("offset shared with F_DUPFD: %ld\n", (long)SYS(lseek(d10, 0, SEEK_CUR)));
  int d = SYS(dup(fd));
  SYS(lseek(d, 10, SEEK_SET));
  SYS(read(fd, buf, 2));
  printf("read after dup seek: %.2s\n", buf);
  printf("dup2 to 50: %ld\n", SYS(dup2(fd, 50)));
  printf("dup2 same fd: %ld\n", SYS(dup2(50, 50)));
  long d3 = SYS(dup3(fd, 51, O_CLOEXEC));
  printf("dup3 to 51 cloexec: %ld flags %ld\n", d3, SYS(fcntl(51, F_GETFD)));
  errno = 0;
  CHECK(dup3(51, 51, 0) == -1);
  printf("dup3 same fd: %s\n", errname(errno));
  errno = 0;
  CHECK(fcntl(999, F_GETFD) == -1);
  printf("F_GETFD on closed fd: %s\n", errname(errno));

  // A classic lock never conflicts with the same process's own locks.
  struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 10};
  SYS(fcntl(fd, F_SETLK, &lk));
  struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = 1};
  SYS(fcntl(d, F_GETLK, &q));
  printf("F_GETLK own lock: %s\n", q.l_type == F_UNLCK ? "unlocked" : "locked");
  // OFD locks do conflict with classic ones, even the same process's.
  struct flock oq0 = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  SYS(fcntl(fd, F_OFD_GETLK, &oq0));
  printf("F_OFD_GETLK against the classic lock: %s len %ld pid is mine %s\n",
         oq0.l_type == F_WRLCK ? "wrlck" : "other", (long)oq0.l_len,
         oq0.l_pid == getpid() ? "yes" : "no");
  lk.l_type = F_UNLCK;
  SYS(fcntl(fd, F_SETLK, &lk));
  // OFD locks conflict between open file descriptions, even in one process,
  // and F_OFD_GETLK reports the conflicting lock.
  int other = SYS(open("data.txt", O_RDWR));
  struct flock ofd = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 4, .l_len = 8};
  SYS(fcntl(fd, F_OFD_SETLK, &ofd));
  struct flock oq = {.l_type = F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
  SYS(fcntl(other, F_OFD_GETLK, &oq));
  printf("F_OFD_GETLK: type=%s start=%ld len=%ld pid=%d\n",
         oq.l_type == F_WRLCK ? "wrlck" : oq.l_type == F_UNLCK ? "unlck" : "other",
         (long)oq.l_start, (long)oq.l_len, oq.l_pid);
  struct flock try = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 6, .l_len = 1};
  errno = 0;
  CHECK(fcntl(other, F_OFD_SETLK, &try) == -1);
  printf("conflicting F_OFD_SETLK: %s\n", errname(errno));
  ofd.l_type = F_UNLCK;
  SYS(fcntl(fd, F_OFD_SETLK, &ofd));
  SYS(fcntl(other, F_OFD_SETLK, &try));
  printf("after unlock: locked ok\n");

  SYS(close(d));
  SYS(close(d10));
  SYS(close(d20));
  SYS(close(50));
  SYS(close(51));
  SYS(close(other));
  SYS(close(fd));
  return 0;
}
