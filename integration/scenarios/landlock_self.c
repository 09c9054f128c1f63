// scenario: the program sandboxes itself with Landlock: it asks for the ABI
// version, creates a ruleset that handles file reads, allows them beneath
// its working directory, and restricts itself. Afterwards a file there
// still opens and one outside is refused (EACCES). As with seccomp, the
// restriction is real while recording; replay performs no system calls and
// reproduces the recorded results. Where Landlock is off, every call fails
// the same way natively and recorded.
// input: data.txt = inside the sandbox\n
#include "scenario.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static void try_open(const char* path) {
  errno = 0;
  int fd = open(path, O_RDONLY);
  char buf[64] = {0};
  if (fd >= 0) {
    ssize_t n = read(fd, buf, sizeof buf - 1);
    printf("open %s: ok, read %zd\n", path, n);
    close(fd);
  } else {
    printf("open %s: %s\n", path, errname(errno));
  }
}

int main(void) {
  errno = 0;
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
  printf("landlock ABI: %s\n", abi > 0 ? "available" : errname(errno));
  if (abi <= 0) return 0;
  nd("ABI version %ld\n", abi);

  struct landlock_ruleset_attr attr = {.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE};
  int ruleset = (int)SYS(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  struct landlock_path_beneath_attr beneath = {.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE,
                                               .parent_fd = SYS(open(".", O_PATH | O_DIRECTORY))};
  printf("add rule: %ld\n", syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0));
  errno = 0;
  long r = syscall(SYS_landlock_add_rule, ruleset, 99, &beneath, 0);
  printf("add rule of unknown type: %ld %s\n", r, errname(errno));
  SYS(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0));
  printf("restrict self: %ld\n", syscall(SYS_landlock_restrict_self, ruleset, 0));

  try_open("data.txt");
  try_open("/etc/passwd");
  return 0;
}
