// scenario: a traced thread's death, as a debugger waits for it, with the
// recorder playing the kernel's part (ptrace emulation). The child traces
// itself to its parent (PTRACE_TRACEME) and starts a thread, which its
// parent traces too (PTRACE_O_TRACECLONE); then the child exits with
// exit_group while the thread waits in read(2). Until the tracer reaps the
// thread's exit, the kernel keeps it as a zombie and does not report the
// process's exit: a wait for the child alone finds nothing (WNOHANG), as
// gdb relies on to hear of each thread's exit before the process's. Then
// the thread's exit and the process's are reaped, in that order. Every
// line is compared with the native run's.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int hold[2], go[2];

static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s (%s)\n", what, strerror(errno));
    exit(1);
  }
}

static void* waiter(void* arg) {
  char c;
  read(hold[0], &c, 1);  // never returns: the process exits first
  return arg;
}

static void child(void) {
  if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0) _exit(90);
  raise(SIGSTOP);
  pthread_t th;
  pthread_create(&th, NULL, waiter, NULL);
  // Exits once the parent says the thread runs (the thread's first stop
  // was seen and resumed): exit_group ends the thread too.
  char c;
  read(go[0], &c, 1);
  exit(3);
}

// Whether `pid` is a zombie (/proc/PID/stat's state), up to ~10 s.
static int becomes_zombie(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  for (int i = 0; i < 10000; ++i) {
    FILE* f = fopen(path, "r");
    char buf[512] = "";
    if (f) {
      size_t n = fread(buf, 1, sizeof buf - 1, f);
      buf[n] = 0;
      fclose(f);
    }
    char* close = strrchr(buf, ')');
    if (close && close[1] == ' ' && close[2] == 'Z') return 1;
    struct timespec ms = {0, 1000000};
    nanosleep(&ms, NULL);
  }
  return 0;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  check(pipe(hold) == 0 && pipe(go) == 0, "pipe");
  pid_t pid = fork();
  if (pid == 0) child();
  int status = 0;
  check(waitpid(pid, &status, 0) == pid && WIFSTOPPED(status), "the child's SIGSTOP");
  check(ptrace(PTRACE_SETOPTIONS, pid, 0, PTRACE_O_TRACECLONE) == 0, "PTRACE_SETOPTIONS");
  check(ptrace(PTRACE_CONT, pid, 0, 0) == 0, "PTRACE_CONT");
  // The clone event of the child and the thread's first stop, in either
  // order.
  pid_t thread = 0;
  int first_stop = 0;
  for (int seen = 0; seen < 2; ++seen) {
    pid_t who = waitpid(-1, &status, __WALL);
    check(who > 0 && WIFSTOPPED(status), "a stop");
    if (who == pid) {
      unsigned long msg = 0;
      check((status >> 16) == PTRACE_EVENT_CLONE, "the clone event");
      ptrace(PTRACE_GETEVENTMSG, pid, 0, &msg);
      thread = (pid_t)msg;
    } else {
      first_stop = WSTOPSIG(status);
    }
    check(ptrace(PTRACE_CONT, who, 0, 0) == 0, "PTRACE_CONT");
  }
  check(thread > 0, "the thread's id");
  printf("clone event of the child; the thread's first stop: signal %d\n", first_stop);
  check(write(go[1], "x", 1) == 1, "go");
  printf("the child became a zombie: %d\n", becomes_zombie(pid));
  printf("a wait for the child alone, before the thread is reaped: %d\n",
         (int)waitpid(pid, &status, WNOHANG | __WALL));
  check(waitpid(thread, &status, __WALL) == thread, "the thread's exit");
  printf("the thread: exited %d, status %d\n", WIFEXITED(status), WEXITSTATUS(status));
  check(waitpid(pid, &status, __WALL) == pid, "the child's exit");
  printf("the child: exited %d, status %d\n", WIFEXITED(status), WEXITSTATUS(status));
  return 0;
}
