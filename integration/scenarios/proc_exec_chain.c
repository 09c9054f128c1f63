// scenario: exec chains: a child execs /bin/sh, which runs a command and
// then execs /bin/echo (three programs in one process); then the program
// itself execs /bin/sh, which execs /bin/sh again, which ends with `exit 6`.
// expect-exit: 6
#include "proc_util.h"

int main(void) {
  pid_t pid = proc_fork();
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", "echo shell first; exec /bin/echo echo last: \"$0\" \"$1\"", "zero", "one",
          (char*)NULL);
    _exit(127);
  }
  printf("child chain: %s\n", status_text(wait_for(pid)));
  printf("now the program execs\n");
  fflush(stdout);
  execl("/bin/sh", "sh", "-c", "echo outer shell; exec /bin/sh -c 'echo inner shell; exit 6'", (char*)NULL);
  CHECK(0);
}
