// scenario: the program starts with exactly what its parent gave it: fds
// 0, 1, 2, and the next open returns 3. Lists /proc/self/fd.
#include "scenario.h"

#include <dirent.h>
#include <fcntl.h>

int main(void) {
  int fd = SYS(open("/dev/null", O_RDONLY));
  printf("first open returns %d\n", fd);
  SYS(close(fd));
  DIR* d = opendir("/proc/self/fd");
  CHECK(d != NULL);
  int self = dirfd(d);
  int low = 0, total = 0;
  struct dirent* e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    int n = atoi(e->d_name);
    if (n == self) continue;
    total++;
    if (n <= 2) low++;
    nd("fd %d\n", n);
  }
  closedir(d);
  printf("fds 0-2 open: %d\n", low);
  nd("open fds besides the listing: %d\n", total);
  for (int i = 0; i <= 2; i++) {
    int fl = SYS(fcntl(i, F_GETFL));
    printf("fd %d access mode %d\n", i, fl & O_ACCMODE);
  }
  return 0;
}
