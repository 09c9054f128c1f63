// scenario: read /proc/self/maps, /proc/self/stat, /proc/self/status,
// /proc/self/cmdline and /proc/self/exe; the contents vary, what they say
// about the program does not.
#include "scenario.h"

#include <fcntl.h>
#include <limits.h>

static size_t slurp(const char* path, char* buf, size_t cap) {
  int fd = SYS(open(path, O_RDONLY));
  size_t len = 0;
  for (;;) {
    ssize_t n = SYS(read(fd, buf + len, cap - 1 - len));
    if (n == 0) break;
    len += n;
    CHECK(len < cap - 1);
  }
  buf[len] = 0;
  SYS(close(fd));
  return len;
}

int main(int argc, char** argv) {
  (void)argc;
  static char buf[1 << 18];
  slurp("/proc/self/maps", buf, sizeof buf);
  int lines = 0, stack = 0, self = 0, libc = 0;
  for (char* line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
    nd("maps: %s\n", line);
    lines++;
    stack += strstr(line, "[stack]") != NULL;
    self += strstr(line, "/proc_self") != NULL;
    libc += strstr(line, "libc.so") != NULL;
  }
  printf("maps: has [stack]: %d, maps the program: %d, maps libc: %d\n", stack == 1, self > 0,
         libc > 0);
  nd("maps lines %d\n", lines);

  slurp("/proc/self/stat", buf, sizeof buf);
  nd("stat: %s", buf);
  int pid = 0;
  char comm[64] = {0}, state = 0;
  CHECK(sscanf(buf, "%d %63s %c", &pid, comm, &state) == 3);
  printf("stat: pid is getpid: %s, comm %s, state %c\n", pid == getpid() ? "yes" : "no", comm,
         state);

  slurp("/proc/self/status", buf, sizeof buf);
  char* name = strstr(buf, "Name:");
  CHECK(name != NULL);
  printf("status %.*s\n", (int)strcspn(name, "\n"), name);
  nd("status TracerPid line: %.*s\n", (int)strcspn(strstr(buf, "TracerPid:"), "\n"),
     strstr(buf, "TracerPid:"));

  size_t n = slurp("/proc/self/cmdline", buf, sizeof buf);
  printf("cmdline:");
  for (size_t i = 0; i < n; i += strlen(buf + i) + 1) printf(" [%s]", buf + i);
  printf("\n");
  printf("argv[0]: %s\n", argv[0]);

  char exe[PATH_MAX];
  ssize_t len = SYS(readlink("/proc/self/exe", exe, sizeof exe - 1));
  exe[len] = 0;
  nd("exe %s\n", exe);
  char* base = strrchr(exe, '/');
  printf("exe basename: %s\n", base ? base + 1 : exe);
  return 0;
}
