// scenario: children ended by signals, as the parent sees them
// (WIFSIGNALED/WTERMSIG): SIGKILL and SIGTERM sent by the parent to a child
// blocked in pause(), a child's own SIGSEGV, raise(SIGUSR1), and a child
// that ignores SIGTERM and so exits normally.
#include "proc_util.h"

#include <sys/resource.h>
#include <sys/syscall.h>

int main(void) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  int sigs[] = {SIGKILL, SIGTERM, SIGINT, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    int ready[2];
    SYS(pipe(ready));
    pid_t pid = proc_fork();
    if (pid == 0) {
      close(ready[0]);
      write_full(ready[1], "r", 1);
      for (;;) pause();
    }
    close(ready[1]);
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    close(ready[0]);
    // Sent once the child sleeps in pause(). (A SIGKILL to a child that
    // backstep holds stopped is a known limit: ../known_limits/proc_kill_unstarted.c.)
    wait_child_sleeping_in(pid, SYS_pause);
    SYS(kill(pid, sigs[i]));
    int status = wait_for(pid);
    printf("sent SIG%s: WIFSIGNALED %d, %s\n", sigabbrev_np(sigs[i]), WIFSIGNALED(status), status_text(status));
  }
  pid_t pid = proc_fork();
  if (pid == 0) {
    volatile int* p = (volatile int*)16;
    *p = 1;
    _exit(0);
  }
  printf("null store: %s\n", status_text(wait_for(pid)));
  pid = proc_fork();
  if (pid == 0) {
    raise(SIGUSR1);
    _exit(0);
  }
  printf("raise(SIGUSR1): %s\n", status_text(wait_for(pid)));
  pid = proc_fork();
  if (pid == 0) {
    signal(SIGTERM, SIG_IGN);
    raise(SIGTERM);
    _exit(6);
  }
  printf("ignored SIGTERM: %s\n", status_text(wait_for(pid)));
  return 0;
}
