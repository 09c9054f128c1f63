// scenario: mkdir/mkdirat/rmdir, readdir (getdents64), raw getdents64 with a
// tiny buffer, rename/renameat2, symlink/readlink, access/faccessat/faccessat2,
// unlink/unlinkat.
#include "scenario.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>

static int cmp(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

static void list(const char* dir) {
  DIR* d = opendir(dir);
  CHECK(d != NULL);
  char* names[64];
  int count = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    CHECK(count < 64);
    names[count++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(names, count, sizeof names[0], cmp);
  printf("%s:", dir);
  for (int i = 0; i < count; i++) {
    printf(" %s", names[i]);
    free(names[i]);
  }
  printf(" (%d)\n", count);
}

static void touch(const char* path) {
  int fd = SYS(open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644));
  SYS(write(fd, path, strlen(path)));
  SYS(close(fd));
}

int main(void) {
  SYS(mkdir("d", 0755));
  errno = 0;
  CHECK(mkdir("d", 0755) == -1);
  printf("mkdir again: %s\n", errname(errno));
  touch("d/b");
  touch("d/a");
  touch("d/c");
  SYS(mkdir("d/sub", 0700));
  int dfd = SYS(open("d", O_RDONLY | O_DIRECTORY));
  SYS(mkdirat(dfd, "sub2", 0700));
  char name[64];
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "d/sub/file-%02d-with-a-longish-name", i);
    touch(name);
  }
  list("d");

  // Raw getdents64 with a buffer too small for more than a couple of entries.
  int sfd = SYS(open("d/sub", O_RDONLY | O_DIRECTORY));
  char buf[160];
  int calls = 0, entries = 0;
  for (;;) {
    long n = SYS(syscall(SYS_getdents64, sfd, buf, sizeof buf));
    if (n == 0) break;
    calls++;
    for (long off = 0; off < n;) {
      unsigned short reclen = *(unsigned short*)(buf + off + 16);
      entries++;
      off += reclen;
    }
  }
  printf("getdents64 small buffer: %d entries\n", entries);
  nd("getdents64 calls: %d\n", calls);
  SYS(close(sfd));

  SYS(rename("d/a", "d/z"));
  errno = 0;
  CHECK(renameat2(dfd, "b", dfd, "c", RENAME_NOREPLACE) == -1);
  printf("renameat2 noreplace: %s\n", errname(errno));
  SYS(renameat2(dfd, "b", dfd, "y", RENAME_NOREPLACE));
  SYS(symlink("z", "d/link"));
  char target[64];
  ssize_t n = SYS(readlink("d/link", target, sizeof target));
  printf("readlink: %.*s\n", (int)n, target);
  n = SYS(readlinkat(dfd, "link", target, 1));
  printf("readlinkat truncated: %.*s (%zd)\n", (int)n, target, n);
  errno = 0;
  CHECK(readlink("d/z", target, sizeof target) == -1);
  printf("readlink on a file: %s\n", errname(errno));
  list("d");

  printf("access rw: %d\n", access("d/z", R_OK | W_OK));
  errno = 0;
  int am = access("d/nothing", F_OK);
  printf("access missing: %d %s\n", am, errname(errno));
  printf("faccessat eaccess: %d\n", faccessat(AT_FDCWD, "d/z", R_OK, AT_EACCESS));
  printf("faccessat2 raw: %ld\n",
         syscall(SYS_faccessat2, dfd, "link", F_OK, AT_SYMLINK_NOFOLLOW));
  errno = 0;
  long r = syscall(SYS_faccessat2, dfd, "missing", F_OK, 0);
  printf("faccessat2 missing: %ld %s\n", r, errname(errno));

  errno = 0;
  CHECK(rmdir("d/sub") == -1);
  printf("rmdir non-empty: %s\n", errname(errno));
  for (int i = 0; i < 40; i++) {
    snprintf(name, sizeof name, "d/sub/file-%02d-with-a-longish-name", i);
    SYS(unlink(name));
  }
  SYS(rmdir("d/sub"));
  SYS(unlinkat(dfd, "sub2", AT_REMOVEDIR));
  SYS(unlinkat(dfd, "link", 0));
  SYS(unlink("d/z"));
  SYS(unlink("d/y"));
  SYS(unlink("d/c"));
  list("d");
  SYS(close(dfd));
  SYS(rmdir("d"));
  struct stat st;
  errno = 0;
  CHECK(stat("d", &st) == -1);
  printf("stat removed dir: %s\n", errname(errno));
  return 0;
}
