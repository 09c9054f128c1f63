// scenario: stat/fstat/lstat/statx/newfstatat/statfs, through glibc and as
// raw syscalls; inode numbers and times vary, sizes and modes do not.
// input: data.txt = 0123456789abcdef\n
#include "scenario.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>

static void show(const char* what, const struct stat* st) {
  printf("%s: size=%ld mode=%o nlink=%ld reg=%d lnk=%d\n", what, (long)st->st_size,
         (unsigned)(st->st_mode & 07777), (long)st->st_nlink, S_ISREG(st->st_mode) ? 1 : 0,
         S_ISLNK(st->st_mode) ? 1 : 0);
  nd("%s: dev=%lx ino=%lu mtime=%ld.%09ld atime=%ld.%09ld blocks=%ld\n", what,
     (unsigned long)st->st_dev, (unsigned long)st->st_ino, (long)st->st_mtim.tv_sec,
     st->st_mtim.tv_nsec, (long)st->st_atim.tv_sec, st->st_atim.tv_nsec, (long)st->st_blocks);
}

int main(void) {
  SYS(chmod("data.txt", 0640));
  unlink("link");
  SYS(symlink("data.txt", "link"));

  struct stat s1, s2, s3, s4, s5, s6;
  SYS(stat("data.txt", &s1));
  show("stat", &s1);
  int fd = SYS(open("data.txt", O_RDONLY));
  SYS(fstat(fd, &s2));
  show("fstat", &s2);
  SYS(lstat("link", &s3));
  show("lstat link", &s3);
  SYS(fstatat(AT_FDCWD, "link", &s4, 0));
  show("fstatat link", &s4);
  // The raw system calls, bypassing glibc's choice of newfstatat.
  SYS(syscall(SYS_stat, "data.txt", &s5));
  show("SYS_stat", &s5);
  SYS(syscall(SYS_fstat, fd, &s6));
  show("SYS_fstat", &s6);
  SYS(syscall(SYS_lstat, "link", &s6));
  show("SYS_lstat", &s6);
  SYS(syscall(SYS_newfstatat, fd, "", &s6, AT_EMPTY_PATH));
  show("SYS_newfstatat empty path", &s6);

  struct statx sx;
  SYS(statx(AT_FDCWD, "data.txt", AT_SYMLINK_NOFOLLOW, STATX_ALL, &sx));
  printf("statx: size=%llu mode=%o has-basic-stats=%d\n", (unsigned long long)sx.stx_size,
         (unsigned)(sx.stx_mode & 07777), (sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS);
  nd("statx: ino=%llu btime=%lld.%09u mask=%x\n", (unsigned long long)sx.stx_ino,
     (long long)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec, sx.stx_mask);
  printf("same inode everywhere: %s\n",
         (s1.st_ino == s2.st_ino && s1.st_ino == s4.st_ino && s1.st_ino == s5.st_ino &&
          s1.st_ino == sx.stx_ino && s3.st_ino != s1.st_ino)
             ? "yes"
             : "no");

  struct statfs sf;
  SYS(fstatfs(fd, &sf));
  nd("fstatfs: type=%lx bsize=%ld blocks=%lu bfree=%lu\n", (unsigned long)sf.f_type,
     (long)sf.f_bsize, (unsigned long)sf.f_blocks, (unsigned long)sf.f_bfree);
  SYS(statfs(".", &sf));
  nd("statfs: type=%lx files=%lu ffree=%lu\n", (unsigned long)sf.f_type,
     (unsigned long)sf.f_files, (unsigned long)sf.f_ffree);

  errno = 0;
  CHECK(stat("no-such-file", &s1) == -1);
  printf("stat missing: %s\n", errname(errno));
  errno = 0;
  CHECK(statx(AT_FDCWD, "data.txt/x", 0, STATX_SIZE, &sx) == -1);
  printf("statx through a file: %s\n", errname(errno));
  SYS(close(fd));
  return 0;
}
