// scenario: unshare with the flags a single-threaded process may use:
// descriptor table, fs info, SysV semaphore undo, and new UTS, IPC, mount,
// network, cgroup, pid (for children) and finally user namespaces. Later
// calls see the new namespaces; their results are recorded like any other.
// After the new user namespace the recorder must still read the program's
// memory (a file read) and the ids it now sees.
// input: data.txt = read after the namespaces changed\n
#include "scenario.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/utsname.h>

static void try_unshare(const char* label, int flags) {
  errno = 0;
  long r = syscall(SYS_unshare, flags);
  printf("unshare(%s): %ld %s\n", label, r, errname(errno));
}

int main(void) {
  struct utsname before, after;
  SYS(uname(&before));
  try_unshare("FILES", CLONE_FILES);
  try_unshare("FS", CLONE_FS);
  try_unshare("SYSVSEM", CLONE_SYSVSEM);
  try_unshare("THREAD|SIGHAND|VM", CLONE_THREAD | CLONE_SIGHAND | CLONE_VM);
  try_unshare("NEWUTS", CLONE_NEWUTS);
  SYS(uname(&after));
  printf("nodename kept: %s\n", strcmp(before.nodename, after.nodename) == 0 ? "yes" : "no");
  try_unshare("NEWIPC", CLONE_NEWIPC);
  try_unshare("NEWNS", CLONE_NEWNS);
  try_unshare("NEWNET", CLONE_NEWNET);
  try_unshare("NEWCGROUP", CLONE_NEWCGROUP);
  pid_t pid = getpid();
  try_unshare("NEWPID", CLONE_NEWPID);
  printf("pid unchanged: %s\n", getpid() == pid ? "yes" : "no");
  try_unshare("NEWUSER", CLONE_NEWUSER);
  printf("uid %ld gid %ld\n", syscall(SYS_getuid), syscall(SYS_getgid));

  char buf[64] = {0};
  int fd = SYS(open("data.txt", O_RDONLY));
  ssize_t n = SYS(read(fd, buf, sizeof buf - 1));
  printf("read %zd: %s", n, buf);
  return 0;
}
