// scenario: umask, chmod/fchmod/fchmodat, utimensat with explicit times,
// link/linkat, symlinkat, truncate, and the metadata seen afterwards.
#include "scenario.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

int main(void) {
  mode_t old = umask(027);
  printf("umask was %03o\n", (unsigned)old);
  int fd = SYS(open("meta.txt", O_CREAT | O_RDWR | O_TRUNC, 0666));
  struct stat st;
  SYS(fstat(fd, &st));
  printf("mode after umask 027: %03o\n", (unsigned)(st.st_mode & 0777));
  SYS(fchmod(fd, 0600));
  SYS(fstat(fd, &st));
  printf("after fchmod: %03o\n", (unsigned)(st.st_mode & 0777));
  SYS(chmod("meta.txt", 0644));
  SYS(fchmodat(AT_FDCWD, "meta.txt", 0604, 0));
  SYS(stat("meta.txt", &st));
  printf("after fchmodat: %03o\n", (unsigned)(st.st_mode & 0777));

  struct timespec times[2] = {{.tv_sec = 1000000000, .tv_nsec = 123},
                              {.tv_sec = 1234567890, .tv_nsec = 456000}};
  SYS(utimensat(AT_FDCWD, "meta.txt", times, 0));
  SYS(stat("meta.txt", &st));
  printf("atime %ld.%09ld mtime %ld.%09ld\n", (long)st.st_atim.tv_sec, st.st_atim.tv_nsec,
         (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
  struct timespec now[2] = {{.tv_nsec = UTIME_NOW}, {.tv_nsec = UTIME_OMIT}};
  SYS(futimens(fd, now));
  SYS(fstat(fd, &st));
  printf("mtime kept by UTIME_OMIT: %ld\n", (long)st.st_mtim.tv_sec);
  nd("atime set to now: %ld.%09ld\n", (long)st.st_atim.tv_sec, st.st_atim.tv_nsec);

  SYS(link("meta.txt", "hard.txt"));
  SYS(linkat(AT_FDCWD, "meta.txt", AT_FDCWD, "hard2.txt", 0));
  SYS(fstat(fd, &st));
  printf("nlink after two links: %ld\n", (long)st.st_nlink);
  SYS(symlinkat("meta.txt", AT_FDCWD, "soft.txt"));
  SYS(write(fd, "0123456789", 10));
  SYS(truncate("soft.txt", 4));  // follows the link
  SYS(stat("hard.txt", &st));
  printf("size through hard link after truncate via symlink: %ld\n", (long)st.st_size);
  SYS(unlink("hard.txt"));
  SYS(unlink("hard2.txt"));
  SYS(unlink("soft.txt"));
  SYS(fstat(fd, &st));
  printf("nlink after unlinks: %ld\n", (long)st.st_nlink);
  SYS(close(fd));
  SYS(unlink("meta.txt"));
  umask(old);
  return 0;
}
