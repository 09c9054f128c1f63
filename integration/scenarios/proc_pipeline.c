// scenario: a shell pipeline of real tools: the program runs
// /bin/sh -c 'seq 1 5000 | grep 7 | sort -r | head -n 3; seq 1 5000 | grep -c 3 | wc -c'
// with its stdout on a pipe it reads, then a second pipeline that writes
// to the program's own stdout; the statuses of both shells are reported.
#include "proc_util.h"

static void run_shell(const char* cmd, int out_fd) {
  pid_t pid = proc_fork();
  if (pid == 0) {
    if (out_fd >= 0) {
      dup2(out_fd, 1);
      close(out_fd);
    }
    execl("/bin/sh", "sh", "-c", cmd, (char*)NULL);
    _exit(127);
  }
}

int main(void) {
  int fds[2];
  SYS(pipe(fds));
  run_shell("seq 1 5000 | grep 7 | sort -r | head -n 3; seq 1 5000 | grep -c 3 | wc -c", fds[1]);
  close(fds[1]);
  char buf[4096];
  size_t n = read_full(fds[0], buf, sizeof buf - 1);
  buf[n] = 0;
  close(fds[0]);
  int status;
  CHECK(wait(&status) > 0);
  printf("captured %zu bytes:\n%s", n, buf);
  printf("shell 1: %s\n", status_text(status));
  run_shell("seq 10 -1 1 | sort -n | tr '\\n' ' ' | sed 's/ $/\\n/'; exit 7", -1);
  CHECK(wait(&status) > 0);
  printf("shell 2: %s\n", status_text(status));
  return 0;
}
