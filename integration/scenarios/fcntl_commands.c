// scenario: fcntl commands that answer through memory: F_SET_RW_HINT then
// F_GET_RW_HINT (a u64), F_GET_FILE_RW_HINT, F_GETOWNER_UIDS (two uid_t),
// F_GETOWN_EX, F_GETLK against an OFD lock held on another descriptor, and
// F_OFD_GETLK; and the ones that answer in the return value (F_GET_SEALS,
// F_GETPIPE_SZ, F_GETSIG, F_GETLEASE, F_DUPFD_QUERY, F_CREATED_QUERY) or do
// not exist (EINVAL). Outputs start filled with a pattern, so memory the
// recording missed prints differently in replay.
#include "scenario.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>

#define FILL 0xa5
#define GETOWNER_UIDS 17
#define DUPFD_QUERY 1027
#define CREATED_QUERY 1028
#define GET_FILE_RW_HINT 1037

static long call(const char* name, int fd, int cmd, unsigned long arg) {
  errno = 0;
  long r = fcntl(fd, cmd, arg);
  if (r < 0) {
    printf("%s (%d): %s\n", name, cmd, strerrorname_np(errno));
  } else {
    printf("%s (%d): %ld\n", name, cmd, r);
  }
  return r;
}

static void print_lock(const struct flock* l) {
  printf("  type %s start %lld len %lld pid %d\n",
         l->l_type == F_UNLCK ? "F_UNLCK" : l->l_type == F_WRLCK ? "F_WRLCK" : "F_RDLCK",
         (long long)l->l_start, (long long)l->l_len, l->l_pid);
}

int main(void) {
  int fd = SYS(open("hinted.dat", O_CREAT | O_RDWR | O_TRUNC, 0644));
  SYS(write(fd, "0123456789", 10));
  uint64_t hint = RWH_WRITE_LIFE_MEDIUM;
  call("F_SET_RW_HINT medium", fd, F_SET_RW_HINT, (unsigned long)&hint);
  memset(&hint, FILL, sizeof hint);
  if (call("F_GET_RW_HINT", fd, F_GET_RW_HINT, (unsigned long)&hint) == 0) {
    printf("  hint %llu\n", (unsigned long long)hint);
  }
  hint = RWH_WRITE_LIFE_EXTREME;
  call("F_SET_RW_HINT extreme", fd, F_SET_RW_HINT, (unsigned long)&hint);
  memset(&hint, FILL, sizeof hint);
  if (call("F_GET_RW_HINT", fd, F_GET_RW_HINT, (unsigned long)&hint) == 0) {
    printf("  hint %llu\n", (unsigned long long)hint);
  }
  memset(&hint, FILL, sizeof hint);
  if (call("F_GET_FILE_RW_HINT", fd, GET_FILE_RW_HINT, (unsigned long)&hint) == 0) {
    printf("  hint %llu\n", (unsigned long long)hint);
  }

  call("F_SETOWN", fd, F_SETOWN, (unsigned long)getpid());
  uid_t uids[2];
  memset(uids, FILL, sizeof uids);
  if (call("F_GETOWNER_UIDS", fd, GETOWNER_UIDS, (unsigned long)uids) == 0) {
    printf("  uids match getuid/geteuid: %s\n", uids[0] == getuid() && uids[1] == geteuid() ? "yes" : "no");
  }
  struct f_owner_ex owner;
  memset(&owner, FILL, sizeof owner);
  call("F_GETOWN_EX", fd, F_GETOWN_EX, (unsigned long)&owner);
  printf("  owner type %d is us: %s\n", owner.type, owner.pid == getpid() ? "yes" : "no");
  call("F_SETSIG SIGUSR1", fd, F_SETSIG, SIGUSR1);
  call("F_GETSIG", fd, F_GETSIG, 0);
  call("F_GETLEASE", fd, F_GETLEASE, 0);

  int other = SYS(open("hinted.dat", O_RDWR));
  struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 2, .l_len = 5};
  call("F_OFD_SETLK", other, F_OFD_SETLK, (unsigned long)&lk);
  memset(&lk, FILL, sizeof lk);
  lk.l_type = F_RDLCK;
  lk.l_whence = SEEK_SET;
  lk.l_start = 0;
  lk.l_len = 0;
  call("F_GETLK", fd, F_GETLK, (unsigned long)&lk);
  print_lock(&lk);
  memset(&lk, FILL, sizeof lk);
  lk.l_type = F_WRLCK;
  lk.l_whence = SEEK_SET;
  lk.l_start = 4;
  lk.l_len = 1;
  lk.l_pid = 0;
  call("F_OFD_GETLK", fd, F_OFD_GETLK, (unsigned long)&lk);
  print_lock(&lk);
  memset(&lk, FILL, sizeof lk);
  lk.l_type = F_WRLCK;
  lk.l_whence = SEEK_SET;
  lk.l_start = 8;
  lk.l_len = 1;
  lk.l_pid = 0;
  call("F_OFD_GETLK free range", fd, F_OFD_GETLK, (unsigned long)&lk);
  print_lock(&lk);
  call("F_DUPFD_QUERY same file", fd, DUPFD_QUERY, (unsigned long)other);
  int dup = (int)SYS(fcntl(fd, F_DUPFD_CLOEXEC, 10));
  call("F_DUPFD_QUERY duplicate", fd, DUPFD_QUERY, (unsigned long)dup);
  call("F_CREATED_QUERY", fd, CREATED_QUERY, 0);

  int mfd = SYS(memfd_create("sealed", MFD_ALLOW_SEALING));
  call("F_ADD_SEALS", mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW);
  call("F_GET_SEALS", mfd, F_GET_SEALS, 0);
  int p[2];
  SYS(pipe(p));
  call("F_SETPIPE_SZ", p[0], F_SETPIPE_SZ, 1 << 16);
  call("F_GETPIPE_SZ", p[0], F_GETPIPE_SZ, 0);
  call("unknown command 9999", fd, 9999, 0);
  call("F_GETLK bad pointer", fd, F_GETLK, 16);
  return 0;
}
