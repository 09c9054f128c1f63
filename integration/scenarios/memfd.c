// scenario: memfd_create, ftruncate, a MAP_SHARED mapping of the memfd seen
// through read()/write(), and file seals.
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <time.h>

int main(void) {
  int fd = SYS(memfd_create("scenario-memfd", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  long page = sysconf(_SC_PAGESIZE);
  SYS(ftruncate(fd, 2 * page));
  char* m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  int len = snprintf(m, 64, "mono %lld.%09ld", (long long)ts.tv_sec, ts.tv_nsec);
  char buf[64] = {0};
  CHECK(SYS(pread(fd, buf, len, 0)) == len);
  printf("read() sees the store: %s\n", strcmp(buf, m) == 0 ? "yes" : "no");
  nd("%s\n", buf);
  SYS(pwrite(fd, "from write", 10, page));
  printf("mapping sees write: %.10s\n", m + page);
  SYS(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW));
  printf("seals: %lx\n", SYS(fcntl(fd, F_GET_SEALS)));
  errno = 0;
  CHECK(ftruncate(fd, page) == -1);
  printf("shrink sealed memfd: %s\n", errno == EPERM ? "EPERM" : errname(errno));
  char link[64];
  char path[64];
  snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
  ssize_t n = SYS(readlink(path, link, sizeof link - 1));
  link[n] = 0;
  printf("memfd link: %s\n", link);
  SYS(munmap(m, 2 * page));
  SYS(close(fd));
  return 0;
}
