// scenario: execve failures before a success, in a child and in the
// program itself: ENOENT (no file, and a missing interpreter in a #!
// line), EACCES (a file without execute permission, a directory),
// ENOEXEC (an executable file that is no program); then an exec that
// succeeds, with 2000 arguments.
// expect-exit: 0
#include "proc_util.h"

#include <sys/stat.h>

static void make_file(const char* name, const char* text, mode_t mode) {
  FILE* f = fopen(name, "w");
  CHECK(f != NULL);
  fputs(text, f);
  CHECK(fclose(f) == 0);
  SYS(chmod(name, mode));
}

static void try_exec(const char* path) {
  char* argv[] = {(char*)path, NULL};
  char* envp[] = {NULL};
  errno = 0;
  int r = execve(path, argv, envp);
  printf("execve(%s): %d %s\n", path, r, errname(errno));
}

int main(void) {
  make_file("not-executable", "#!/bin/sh\necho no\n", 0644);
  make_file("garbage", "\x7f" "ELF but not really\n", 0755);
  make_file("bad-interp", "#!/no/such/interpreter\n", 0755);
  SYS(mkdir("a-directory", 0755));
  pid_t pid = proc_fork();
  if (pid == 0) {
    try_exec("/no/such/file");
    try_exec("./not-executable");
    try_exec("./a-directory");
    try_exec("./garbage");
    try_exec("./bad-interp");
    fflush(stdout);
    execl("/bin/echo", "echo", "child: exec works after five failures", (char*)NULL);
    _exit(127);
  }
  printf("child: %s\n", status_text(wait_for(pid)));
  try_exec("./not-executable");
  try_exec("/no/such/file");
  // A long argument list: $0 and 2000 arguments.
  static char* argv[2005];
  static char bufs[2005][8];
  argv[0] = "sh";
  argv[1] = "-c";
  argv[2] = "echo \"program: became sh with $# arguments, the last ${2000}\"";
  argv[3] = "zero";
  for (int i = 4; i < 2004; i++) {
    snprintf(bufs[i], sizeof bufs[i], "a%d", i - 3);
    argv[i] = bufs[i];
  }
  argv[2004] = NULL;
  fflush(stdout);
  execv("/bin/sh", argv);
  CHECK(0);
}
