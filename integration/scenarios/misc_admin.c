// scenario: administrative calls that only read, or that the kernel
// rejects without changing anything: syslog (buffer size, reading the whole
// log), sysfs (filesystem types by index and name), the retired _sysctl,
// acct on a missing file, quotactl/quotactl_fd queries, and kcmp comparing
// two descriptors of one file and of different files.
#include "scenario.h"

#include <fcntl.h>
#include <linux/kcmp.h>
#include <linux/quota.h>
#include <linux/sysctl.h>
#include <sys/syscall.h>

#define SYSLOG_ACTION_READ_ALL 3
#define SYSLOG_ACTION_SIZE_BUFFER 10

int main(void) {
  errno = 0;
  long size = syscall(SYS_syslog, SYSLOG_ACTION_SIZE_BUFFER, NULL, 0);
  printf("syslog size: %s\n", size > 0 ? "ok" : errname(errno));
  static char log[1 << 16];
  errno = 0;
  long n = syscall(SYS_syslog, SYSLOG_ACTION_READ_ALL, log, sizeof log);
  printf("syslog read all: %s\n", n >= 0 ? "ok" : errname(errno));
  if (n >= 0) nd("syslog %ld bytes, checksum %016llx\n", n, (unsigned long long)fnv1a(log, (size_t)n, FNV_INIT));

  long types = syscall(SYS_sysfs, 3);
  printf("sysfs types: %s\n", types > 0 ? "ok" : errname(errno));
  char name[256];
  memset(name, '#', sizeof name);
  long r = syscall(SYS_sysfs, 2, 0, name);
  printf("sysfs type 0: %ld '%s', byte after: %s\n", r, r == 0 ? name : "-",
         r == 0 && name[strlen(name) + 1] == '#' ? "untouched" : "?");
  if (r == 0) {
    long index = syscall(SYS_sysfs, 1, name);
    printf("sysfs index of '%s': %ld\n", name, index);
  }
  errno = 0;
  r = syscall(SYS_sysfs, 2, 100000, name);
  printf("sysfs type 100000: %ld %s\n", r, errname(errno));

  int names[2] = {CTL_KERN, KERN_OSTYPE};
  char old[64] = "unchanged";
  size_t oldlen = sizeof old;
  struct __sysctl_args args = {names, 2, old, &oldlen, NULL, 0, {0}};
  errno = 0;
  r = syscall(SYS__sysctl, &args);
  printf("_sysctl: %ld %s '%s'\n", r, errname(errno), r == 0 ? old : "-");

  errno = 0;
  r = syscall(SYS_acct, "/nonexistent-backstep/acct");
  printf("acct(missing): %ld %s\n", r, errname(errno));

  unsigned fmt = 0xdeadbeef;
  errno = 0;
  r = syscall(SYS_quotactl, QCMD(Q_GETFMT, USRQUOTA), "/nonexistent-backstep", 0, &fmt);
  printf("quotactl(GETFMT, missing): %ld %s\n", r, errname(errno));
  int root = SYS(open("/", O_RDONLY | O_DIRECTORY));
  struct if_dqinfo info;
  errno = 0;
  r = syscall(SYS_quotactl_fd, root, QCMD(Q_GETINFO, USRQUOTA), 0, &info);
  printf("quotactl_fd(GETINFO, /): %s\n", r == 0 ? "ok" : "failed");
  if (r == 0) nd("grace %llu %llu\n", (unsigned long long)info.dqi_bgrace, (unsigned long long)info.dqi_igrace);

  int fd = SYS(open("/dev/null", O_RDONLY));
  int same = SYS(dup(fd));
  int other = SYS(open("/dev/null", O_RDONLY));
  pid_t self = getpid();
  errno = 0;
  r = syscall(SYS_kcmp, self, self, KCMP_FILE, fd, same);
  printf("kcmp(dup): %ld %s\n", r, errname(errno));
  errno = 0;
  r = syscall(SYS_kcmp, self, self, KCMP_FILE, fd, other);
  printf("kcmp(other open): %s\n", r > 0 ? "differ" : r == 0 ? "equal" : errname(errno));
  return 0;
}
