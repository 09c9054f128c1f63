// scenario: inotify events for create/modify/close/delete in a directory
// (read as one buffer of variable-length records, FIONREAD), then extended
// attributes on a file: setxattr, the size probe, getxattr, listxattr,
// fgetxattr of a missing name, XATTR_CREATE on an existing one, removal
// (or the errors a filesystem without user xattrs gives), and flock.
#include "scenario.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>

static const char* xerr(int e) {
  if (e == ENODATA) return "ENODATA";
  if (e == ENOTSUP) return "ENOTSUP";
  return errname(e);
}

static void watch_directory(void) {
  char dir[] = "/tmp/backstep_inotifyXXXXXX";
  CHECK(mkdtemp(dir));
  int in = SYS(inotify_init1(IN_NONBLOCK | IN_CLOEXEC));
  int wd = SYS(inotify_add_watch(in, dir, IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_DELETE));
  char path[128];
  snprintf(path, sizeof path, "%s/file.txt", dir);
  int fd = SYS(open(path, O_CREAT | O_WRONLY, 0644));
  SYS(write(fd, "x", 1));
  close(fd);
  SYS(unlink(path));
  int pending = 0;
  SYS(ioctl(in, FIONREAD, &pending));
  printf("pending bytes: %d\n", pending);
  char buf[4096] __attribute__((aligned(8)));
  ssize_t n = SYS(read(in, buf, sizeof buf));
  for (char* p = buf; p < buf + n;) {
    struct inotify_event* e = (struct inotify_event*)p;
    printf("event: same watch %d, mask %#x, name '%s'\n", e->wd == wd, e->mask, e->len ? e->name : "");
    p += sizeof *e + e->len;
  }
  errno = 0;
  n = read(in, buf, sizeof buf);
  printf("drained: %zd %s\n", n, errname(errno));
  SYS(inotify_rm_watch(in, wd));
  n = SYS(read(in, buf, sizeof buf));
  printf("after rm_watch: IN_IGNORED %d\n", n > 0 && (((struct inotify_event*)buf)->mask & IN_IGNORED) != 0);
  close(in);
  SYS(rmdir(dir));
}

static void attributes(void) {
  char path[] = "/tmp/backstep_xattrXXXXXX";
  int fd = SYS(mkstemp(path));
  if (setxattr(path, "user.colour", "blue", 4, 0) != 0) {
    printf("setxattr: %s\n", xerr(errno));
  } else {
    printf("size probe: %zd\n", getxattr(path, "user.colour", NULL, 0));
    char value[32] = {0};
    ssize_t n = SYS(getxattr(path, "user.colour", value, sizeof value));
    printf("getxattr: %zd '%s'\n", n, value);
    SYS(fsetxattr(fd, "user.shape", "round", 5, XATTR_CREATE));
    errno = 0;
    int r = fsetxattr(fd, "user.shape", "square", 6, XATTR_CREATE);
    printf("create again: %d %s\n", r, errno == EEXIST ? "EEXIST" : xerr(errno));
    char list[256];
    n = SYS(flistxattr(fd, list, sizeof list));
    int names = 0;
    for (char* p = list; p < list + n; p += strlen(p) + 1) names += strncmp(p, "user.", 5) == 0;
    printf("user names listed: %d\n", names);
    errno = 0;
    n = fgetxattr(fd, "user.missing", value, sizeof value);
    printf("missing: %zd %s\n", n, xerr(errno));
    errno = 0;
    n = getxattr(path, "user.shape", value, 2);
    printf("buffer too small: %zd %s\n", n, xerr(errno));
    SYS(removexattr(path, "user.colour"));
    n = SYS(listxattr(path, list, sizeof list));
    printf("after removal: %zd bytes of names\n", n);
  }
  SYS(flock(fd, LOCK_EX | LOCK_NB));
  int other = SYS(open(path, O_RDONLY));
  errno = 0;
  int r = flock(other, LOCK_SH | LOCK_NB);
  printf("second flock: %d %s\n", r, errname(errno) );
  SYS(flock(fd, LOCK_UN));
  SYS(flock(other, LOCK_SH | LOCK_NB));
  printf("after unlock: shared lock taken\n");
  close(other);
  close(fd);
  unlink(path);
}

int main(void) {
  watch_directory();
  attributes();
  return 0;
}
