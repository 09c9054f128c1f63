// scenario: getpid/getppid across a small tree: each child and grandchild
// checks getppid() against the pid its parent had before forking, and
// fork's return value against the child's own getpid(); pids themselves
// go on "~" lines.
#include "proc_util.h"

int main(void) {
  pid_t root = getpid();
  nd("root pid %d\n", root);
  int report[2];
  SYS(pipe(report));
  for (int i = 0; i < 3; i++) {
    pid_t pid = proc_fork();
    if (pid == 0) {
      pid_t me = getpid();
      int ok = getppid() == root && me != root;
      pid_t g = fork();
      if (g == 0) {
        int gok = getppid() == me && getpid() != me;
        _exit(gok ? 0 : 1);
      }
      int status;
      int gok = waitpid(g, &status, 0) == g && WIFEXITED(status) && WEXITSTATUS(status) == 0;
      char msg[2] = {(char)('0' + ok), (char)('0' + gok)};
      write_full(report[1], msg, 2);
      _exit(10 + i);
    }
    char msg[2];
    CHECK(read_full(report[0], msg, 2) == 2);
    int status = wait_for(pid);
    printf("child %d: parent matches %c, its child's parent matches %c, %s\n", i, msg[0], msg[1], status_text(status));
  }
  printf("root's own pid unchanged %d\n", getpid() == root);
  return 0;
}
