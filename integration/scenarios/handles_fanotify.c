// scenario: file handles and fanotify: name_to_handle_at's size probe
// (EOVERFLOW writes the size it needs), the handle and mount id, reopening
// by handle, and fanotify events for opening and closing a file (or the
// errors an unprivileged run gets).
#include "scenario.h"

#include <fcntl.h>
#include <sys/fanotify.h>
#include <sys/stat.h>

int main(void) {
  char path[] = "/tmp/backstep_handleXXXXXX";
  int fd = SYS(mkstemp(path));
  SYS(write(fd, "by handle", 9));
  close(fd);
  struct file_handle* fh = malloc(sizeof *fh + MAX_HANDLE_SZ);
  CHECK(fh != NULL);
  fh->handle_bytes = 0;
  int mount_id = -1;
  errno = 0;
  int r = name_to_handle_at(AT_FDCWD, path, fh, &mount_id, 0);
  printf("probe: %d %s, size given: %d\n", r, errno == EOVERFLOW ? "EOVERFLOW" : errname(errno),
         fh->handle_bytes > 0);
  fh->handle_bytes = MAX_HANDLE_SZ;
  r = name_to_handle_at(AT_FDCWD, path, fh, &mount_id, 0);
  if (r != 0) {
    printf("name_to_handle_at: %s\n", errname(errno));
  } else {
    nd("handle: type %d, %u bytes, mount %d\n", fh->handle_type, fh->handle_bytes, mount_id);
    nd_hex("handle bytes", fh->f_handle, fh->handle_bytes);
    int mount_fd = SYS(open("/tmp", O_RDONLY | O_DIRECTORY));
    int byh = open_by_handle_at(mount_fd, fh, O_RDONLY);
    if (byh < 0) {
      printf("open_by_handle_at: %s\n", errname(errno));
    } else {
      char buf[16] = {0};
      SYS(read(byh, buf, sizeof buf - 1));
      printf("opened by handle: '%s'\n", buf);
      close(byh);
    }
    close(mount_fd);
  }
  int fan = fanotify_init(FAN_CLASS_NOTIF | FAN_NONBLOCK | FAN_CLOEXEC, O_RDONLY);
  if (fan < 0) {
    printf("fanotify_init: %s\n", errname(errno));
  } else {
    SYS(fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN | FAN_CLOSE_WRITE | FAN_CLOSE_NOWRITE, AT_FDCWD, path));
    close(SYS(open(path, O_RDONLY)));
    char buf[4096] __attribute__((aligned(8)));
    ssize_t n = read(fan, buf, sizeof buf);
    int events = 0;
    for (struct fanotify_event_metadata* m = (void*)buf; n > 0 && FAN_EVENT_OK(m, n); m = FAN_EVENT_NEXT(m, n)) {
      events++;
      printf("event mask %llx, from us %d, fd open %d\n", (unsigned long long)m->mask, m->pid == getpid(),
             m->fd >= 0 && fcntl(m->fd, F_GETFD) >= 0);
      if (m->fd >= 0) close(m->fd);
    }
    printf("events: %d\n", events);
    errno = 0;
    n = read(fan, buf, sizeof buf);
    printf("no more: %zd %s\n", n, errname(errno));
    close(fan);
  }
  unlink(path);
  return 0;
}
