// scenario: posix_spawn (glibc: clone with CLONE_VM|CLONE_VFORK) with file
// actions (stdout onto a pipe, a file opened for the child, a descriptor
// closed), posix_spawnp searching PATH, spawn attributes (signal mask,
// process group, default signal actions), and a spawn of a missing program.
#include "proc_util.h"

#include <fcntl.h>
#include <spawn.h>

extern char** environ;

int main(void) {
  int fds[2];
  SYS(pipe(fds));
  posix_spawn_file_actions_t fa;
  CHECK(posix_spawn_file_actions_init(&fa) == 0);
  CHECK(posix_spawn_file_actions_adddup2(&fa, fds[1], 1) == 0);
  CHECK(posix_spawn_file_actions_addclose(&fa, fds[0]) == 0);
  CHECK(posix_spawn_file_actions_addclose(&fa, fds[1]) == 0);
  char* argv1[] = {"sh", "-c", "echo spawned $#: \"$@\"; exit 5", "sh", "one", "two", NULL};
  pid_t pid;
  fflush(stdout);
  CHECK(posix_spawn(&pid, "/bin/sh", &fa, NULL, argv1, environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[1]);
  char buf[256];
  size_t n = read_full(fds[0], buf, sizeof buf - 1);
  buf[n] = 0;
  close(fds[0]);
  printf("from the pipe: %s", buf);
  printf("sh: %s\n", status_text(wait_for(pid)));

  // The child writes into a file the file actions open for it.
  CHECK(posix_spawn_file_actions_init(&fa) == 0);
  CHECK(posix_spawn_file_actions_addopen(&fa, 1, "spawn-out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644) == 0);
  char* argv2[] = {"seq", "3", NULL};
  fflush(stdout);
  CHECK(posix_spawnp(&pid, "seq", &fa, NULL, argv2, environ) == 0);
  posix_spawn_file_actions_destroy(&fa);
  printf("seq: %s\n", status_text(wait_for(pid)));
  FILE* f = fopen("spawn-out.txt", "r");
  CHECK(f != NULL);
  n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  printf("spawn-out.txt: %s", buf);

  // Attributes: its own process group, SIGTERM blocked in the child.
  posix_spawnattr_t at;
  CHECK(posix_spawnattr_init(&at) == 0);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, SIGTERM);
  CHECK(posix_spawnattr_setsigmask(&at, &mask) == 0);
  CHECK(posix_spawnattr_setpgroup(&at, 0) == 0);
  CHECK(posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP) == 0);
  char* argv3[] = {"sh", "-c", "exec grep SigBlk /proc/self/status", NULL};
  fflush(stdout);
  CHECK(posix_spawn(&pid, "/bin/sh", NULL, &at, argv3, environ) == 0);
  posix_spawnattr_destroy(&at);
  printf("own group: %d\n", getpgid(pid) == pid || getpgid(pid) == -1);
  printf("attributes: %s\n", status_text(wait_for(pid)));

  char* argv4[] = {"missing", NULL};
  int r = posix_spawn(&pid, "/no/such/program", NULL, NULL, argv4, environ);
  printf("missing program: %s\n", errname(r));
  if (r == 0) printf("its status: %s\n", status_text(wait_for(pid)));
  return 0;
}
