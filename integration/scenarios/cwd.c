// scenario: getcwd/chdir/fchdir; the absolute directory differs per run but
// relative moves do not.
#include "scenario.h"

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sys/stat.h>

int main(void) {
  char start[PATH_MAX], buf[PATH_MAX];
  CHECK(getcwd(start, sizeof start) != NULL);
  nd("cwd %s\n", start);
  int home = SYS(open(".", O_RDONLY | O_DIRECTORY));
  SYS(mkdir("sub", 0755));
  SYS(mkdir("sub/deeper", 0755));
  SYS(chdir("sub/deeper"));
  CHECK(getcwd(buf, sizeof buf) != NULL);
  printf("after chdir: ends with /sub/deeper: %s\n",
         strlen(buf) > 11 && strcmp(buf + strlen(buf) - 11, "/sub/deeper") == 0 ? "yes" : "no");
  printf("prefix is the start dir: %s\n", strncmp(buf, start, strlen(start)) == 0 ? "yes" : "no");
  int fd = SYS(open("here.txt", O_CREAT | O_WRONLY, 0644));
  SYS(close(fd));
  SYS(chdir(".."));
  CHECK(getcwd(buf, sizeof buf) != NULL);
  printf("after chdir(..): basename %s\n", basename(buf));
  SYS(fchdir(home));
  CHECK(getcwd(buf, sizeof buf) != NULL);
  printf("after fchdir back: same as start: %s\n", strcmp(buf, start) == 0 ? "yes" : "no");
  struct stat st;
  printf("file created in deeper: %s\n", stat("sub/deeper/here.txt", &st) == 0 ? "yes" : "no");
  errno = 0;
  CHECK(getcwd(buf, 2) == NULL);
  printf("getcwd tiny buffer: %s\n", errname(errno));
  errno = 0;
  CHECK(chdir("no-such-dir") == -1);
  printf("chdir missing: %s\n", errname(errno));
  SYS(unlink("sub/deeper/here.txt"));
  SYS(rmdir("sub/deeper"));
  SYS(rmdir("sub"));
  SYS(close(home));
  return 0;
}
