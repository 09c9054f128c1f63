// scenario: a program that makes itself a small container: new mount and
// UTS namespaces, sethostname/setdomainname, a tmpfs mounted (old and new
// mount API), files made and mapped in it, a bind mount, chroot into it
// (files opened by their new paths, a mapping of one), umount; then the
// newer calls: cachestat, statmount/listmount, lsm_list_modules,
// getxattrat/listxattrat, file_getattr, mseal, reading the LDT and
// process_madvise(MADV_COLD). Unprivileged runs print the errors instead.
// input: outside.txt = a file outside the chroot\n
#include "scenario.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <sys/xattr.h>

#define NR_cachestat 451
#define NR_statmount 457
#define NR_listmount 458
#define NR_lsm_list_modules 461
#define NR_mseal 462
#define NR_getxattrat 464
#define NR_listxattrat 465
#define NR_file_getattr 468

static const char* result(long r) { return r < 0 ? errname(errno) : "ok"; }

static void newer_calls(const char* file) {
  int fd = SYS(open(file, O_RDWR));
  SYS(write(fd, "cached bytes", 12));
  struct {
    uint64_t off, len;
  } range = {0, 0};
  uint64_t cs[5] = {0};
  long r = syscall(NR_cachestat, fd, &range, cs, 0);
  printf("cachestat: %s, cached pages %s\n", result(r), r == 0 ? (cs[0] >= 1 ? ">=1" : "0") : "-");
  struct {
    uint32_t size, spare;
    uint64_t mnt_id, param, mnt_ns_id;
  } req = {32, 0, 0xffffffffffffffffULL /* LSMT_ROOT */, 0, 0};
  uint64_t ids[64];
  r = syscall(NR_listmount, &req, ids, 64, 0);
  nd("listmount: %ld %s\n", r, result(r));
  if (r > 0) {
    req.mnt_id = ids[0];
    req.param = 0x1;  // STATMOUNT_SB_BASIC
    uint64_t buf[64] = {0};
    long s = syscall(NR_statmount, &req, buf, sizeof buf, 0);
    nd("statmount: %ld %s, size %u\n", s, result(s), (unsigned)(buf[0] & 0xffffffff));
  }
  uint64_t lsm[16];
  uint32_t size = 0;
  errno = 0;
  r = syscall(NR_lsm_list_modules, lsm, &size, 0);
  printf("lsm_list_modules probe: %ld %s, size given %d\n", r, errno == E2BIG ? "E2BIG" : errname(errno), size > 0);
  size = sizeof lsm;
  r = syscall(NR_lsm_list_modules, lsm, &size, 0);
  nd("lsm_list_modules: %ld, first id %lu\n", r, r > 0 ? (unsigned long)lsm[0] : 0UL);
  if (setxattr(file, "user.tag", "value!", 6, 0) == 0) {
    char value[16] = {0};
    struct {
      uint64_t value;
      uint32_t size, flags;
    } args = {(uintptr_t)value, sizeof value, 0};
    r = syscall(NR_getxattrat, AT_FDCWD, file, 0, "user.tag", &args, sizeof args);
    printf("getxattrat: %ld %s '%s'\n", r, result(r), value);
    char names[64] = {0};
    r = syscall(NR_listxattrat, AT_FDCWD, file, 0, names, sizeof names);
    printf("listxattrat: %ld %s '%s'\n", r, result(r), names);
  } else {
    printf("setxattr: %s\n", errname(errno));
  }
  uint64_t attr[4] = {0};
  r = syscall(NR_file_getattr, AT_FDCWD, file, attr, 24, 0);
  nd("file_getattr: %ld %s, flags %lx\n", r, result(r), (unsigned long)attr[0]);
  char* sealed = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(sealed != MAP_FAILED);
  sealed[0] = 's';
  r = syscall(NR_mseal, sealed, 4096, 0);
  nd("mseal: %s\n", result(r));
  errno = 0;
  long u = munmap(sealed, 4096);
  nd("munmap of the sealed page: %ld %s\n", u, result(u));
  printf("sealed page still readable: %c\n", sealed[0]);
  char ldt[64];
  r = syscall(SYS_modify_ldt, 0, ldt, sizeof ldt);
  printf("modify_ldt read: %ld\n", r);
  struct iovec iov = {sealed, 4096};
  int self = (int)syscall(SYS_pidfd_open, getpid(), 0);
  r = syscall(SYS_process_madvise, self, &iov, 1, MADV_COLD, 0);
  nd("process_madvise(MADV_COLD): %ld %s\n", r, result(r));
  close(self);
  close(fd);
}

int main(void) {
  char work[] = "/tmp/backstep_mountXXXXXX";
  CHECK(mkdtemp(work));
  long r = syscall(SYS_unshare, CLONE_NEWNS | CLONE_NEWUTS);
  printf("unshare: %s\n", result(r));
  if (r == 0) {
    SYS(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL));
    r = sethostname("backstep-box", 12);
    printf("sethostname: %s\n", result(r));
    r = setdomainname("example", 7);
    printf("setdomainname: %s\n", result(r));
    struct utsname u;
    SYS(uname(&u));
    printf("nodename now: %s, domain %s\n", u.nodename, u.domainname);
    r = mount("none", work, "tmpfs", 0, "size=1m,mode=0755");
    printf("mount tmpfs: %s\n", result(r));
  }
  char file[128];
  snprintf(file, sizeof file, "%s/inside.txt", work);
  int fd = SYS(open(file, O_CREAT | O_RDWR, 0644));
  SYS(write(fd, "mapped inside the mount", 23));
  char* m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED);
  printf("mapping: '%.23s'\n", m);
  close(fd);
  newer_calls(file);
  char bind[128];
  snprintf(bind, sizeof bind, "%s/bound", work);
  SYS(mkdir(bind, 0755));
  r = mount(".", bind, NULL, MS_BIND, NULL);
  printf("bind mount of the working directory: %s\n", result(r));
  int old_root = SYS(open("/", O_RDONLY | O_DIRECTORY));
  int cwd = SYS(open(".", O_RDONLY | O_DIRECTORY));
  r = chroot(work);
  printf("chroot: %s\n", result(r));
  if (r == 0) {
    SYS(chdir("/"));
    int in = SYS(open("/inside.txt", O_RDONLY));
    char* again = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, in, 0);
    CHECK(again != MAP_FAILED);
    printf("inside the chroot: '%.23s'\n", again);
    int out = open("/bound/outside.txt", O_RDONLY);
    char buf[64] = {0};
    if (out >= 0) SYS(read(out, buf, sizeof buf - 1));
    printf("through the bind mount: %s", out >= 0 ? buf : "missing\n");
    SYS(fchdir(old_root));
    r = chroot(".");  // back to the old root, through a descriptor kept open
    printf("chroot back: %s\n", result(r));
    SYS(fchdir(cwd));
  }
  errno = 0;
  r = umount2(bind, MNT_DETACH);
  printf("umount2 of the bind mount: %s\n", result(r));
  r = umount2(work, MNT_DETACH);
  printf("umount2 of the tmpfs: %s\n", result(r));
  if (r != 0) {
    unlink(file);
    rmdir(bind);
  }
  SYS(rmdir(work));
  return 0;
}
