// scenario: a chain of 20 nested forks: each process forks the next, waits
// for it and exits with its child's status plus one; each says its depth
// before forking (so the lines come in order) and after its child ended.
#include "proc_util.h"

static int descend(int depth) {
  child_say("depth %d going down\n", depth);
  if (depth == 20) return 0;
  pid_t pid = proc_fork();
  if (pid == 0) _exit(descend(depth + 1));
  int status = wait_for(pid);
  if (!WIFEXITED(status)) return 200;
  child_say("depth %d: child %s\n", depth, status_text(status));
  return WEXITSTATUS(status) + 1;
}

int main(void) {
  int r = descend(0);
  printf("chain result %d\n", r);
  return r == 20 ? 0 : 1;
}
