// scenario: a process tree in a pid namespace of its own
// (unshare(CLONE_NEWPID)): fork returns the child's pid there (1 for the
// namespace's init, then 2, 3...), not the id the recorder's namespace
// knows it by. Inside, a thread, three children woken by kill() with their
// namespace pids and reaped by waitpid() with them, a signal back to init,
// and a child left running that the kernel kills when init exits. Without
// the privilege for a namespace (not root), one "~" line and nothing else.
#include "proc_util.h"

#include <pthread.h>
#include <sys/syscall.h>

static volatile sig_atomic_t got;
static void on_signal(int sig) { got = sig; }

static void* thread_main(void* arg) {
  (void)arg;
  child_say("thread: tid %ld in process %d\n", (long)syscall(SYS_gettid), getpid());
  return NULL;
}

static void namespace_init(void) {
  child_say("init: pid %d, parent %d\n", getpid(), getppid());
  signal(SIGUSR1, on_signal);
  pthread_t t;
  CHECK(pthread_create(&t, NULL, thread_main, NULL) == 0);
  CHECK(pthread_join(t, NULL) == 0);
  pid_t kids[3];
  int ready[2];
  SYS(pipe(ready));
  sigset_t usr2;
  sigemptyset(&usr2);
  sigaddset(&usr2, SIGUSR2);
  sigprocmask(SIG_BLOCK, &usr2, NULL);
  for (int i = 0; i < 3; i++) {
    kids[i] = proc_fork();
    if (kids[i] == 0) {
      // SIGUSR2 blocked (from before the fork) until sigsuspend: it cannot
      // come between the test of got and the wait.
      signal(SIGUSR2, on_signal);
      write_full(ready[1], "r", 1);
      sigset_t none;
      sigemptyset(&none);
      while (!got) sigsuspend(&none);
      child_say("child %d: pid %d, parent %d, got signal %d\n", i, getpid(), getppid(), (int)got);
      kill(getppid(), SIGUSR1);
      _exit(10 + i);
    }
  }
  char r[3];
  CHECK(read_full(ready[0], r, 3) == 3);
  for (int i = 2; i >= 0; i--) {
    CHECK(kill(kids[i], SIGUSR2) == 0);
    int status;
    pid_t w;
    while ((w = waitpid(kids[i], &status, 0)) == -1 && errno == EINTR) {
    }
    child_say("init: reaped pid %d (forked as %d), %s, signal back %d\n", w, kids[i], status_text(status), (int)got);
    got = 0;
  }
  pid_t left = proc_fork();
  if (left == 0) {
    for (;;) pause();
  }
  child_say("init: exits, leaving pid %d running\n", left);
  _exit(7);
}

int main(void) {
  if (unshare(CLONE_NEWPID) != 0) {
    nd("unshare(CLONE_NEWPID): %s\n", strerror(errno));
    return 0;
  }
  pid_t init = proc_fork();
  if (init == 0) namespace_init();
  int status = wait_for(init);
  printf("namespace init: %s\n", status_text(status));
  // The namespace died with its init: no further process can start in it.
  errno = 0;
  pid_t again = fork();
  if (again == 0) _exit(0);
  printf("fork after init's end: %ld %s\n", (long)again, errname(errno));
  return 0;
}
