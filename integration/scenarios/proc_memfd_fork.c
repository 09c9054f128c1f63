// scenario: memfd_create shared between parent and child through fork: a
// MAP_SHARED mapping of its two pages made before fork, stored into by the
// child and read by the parent; the child writes the second page with
// write(), reaches the file through /proc/self/fd/N too (a second open file
// description) and seals it; the parent maps the second page once more
// afterwards. (A write(2) where no mapping is, mapped later, is a known
// limit: see ../known_limits/shared_file_write_unmapped.c.)
#include "proc_util.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

int main(void) {
  int fd = SYS(memfd_create("shared-between-processes", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  SYS(ftruncate(fd, 8192));
  char* map = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(map != MAP_FAILED);
  strcpy(map, "parent wrote first");
  pid_t pid = proc_fork();
  if (pid == 0) {
    char seen[64];
    snprintf(seen, sizeof seen, "%s", map);
    strcpy(map, "child replaced it");
    SYS(lseek(fd, 4096, SEEK_SET));  // the file stays 8192 bytes long
    char block[4096];
    memset(block, 'c', sizeof block);
    write_full(fd, block, sizeof block);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    int again = open(path, O_RDWR);
    if (again < 0) _exit(3);
    if (pwrite(again, "via /proc", 9, 8192 - 9) != 9) _exit(4);
    close(again);
    SYS(fcntl(fd, F_ADD_SEALS, F_SEAL_GROW | F_SEAL_SHRINK));
    child_say("child saw '%s'\n", seen);
    _exit(0);
  }
  printf("child: %s\n", status_text(wait_for(pid)));
  printf("parent sees '%s'\n", map);
  struct stat st;
  SYS(fstat(fd, &st));
  printf("size now %lld\n", (long long)st.st_size);
  char* second = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 4096);
  CHECK(second != MAP_FAILED);
  printf("second page: '%c' ... '%.9s', same through the first mapping %d\n", second[0], second + 4096 - 9,
         memcmp(second, map + 4096, 4096) == 0);
  int seals = SYS(fcntl(fd, F_GET_SEALS));
  printf("seals grow %d shrink %d write %d\n", !!(seals & F_SEAL_GROW), !!(seals & F_SEAL_SHRINK), !!(seals & F_SEAL_WRITE));
  errno = 0;
  {
    long r = (long)(ftruncate(fd, 16384));
    int e = errno;
    printf("ftruncate past the seal: %ld %s\n", r, errname(e));
  }
  return 0;
}
