// scenario: vfork then execve of /bin/echo; vfork then _exit (the parent
// sees what the child stored in the shared memory before it left); vfork
// then a failed exec and _exit(127).
#include "proc_util.h"

static volatile int shared_note;

int main(void) {
  fflush(stdout);
  pid_t pid = vfork();
  CHECK(pid != -1);
  if (pid == 0) {
    execl("/bin/echo", "echo", "hello from echo after vfork", (char*)NULL);
    _exit(127);
  }
  printf("echo: %s\n", status_text(wait_for(pid)));

  pid = vfork();
  CHECK(pid != -1);
  if (pid == 0) {
    shared_note = 4242;
    _exit(9);
  }
  printf("second child: %s, note %d\n", status_text(wait_for(pid)), shared_note);

  pid = vfork();
  CHECK(pid != -1);
  if (pid == 0) {
    execl("/nonexistent/program", "x", (char*)NULL);
    shared_note = errno;
    _exit(127);
  }
  printf("failed exec: %s, errno %s\n", status_text(wait_for(pid)), errname(shared_note));
  return 0;
}
