// What a debugging tool recorded with backstep (strace -f, gdb) traces in
// run_traced_by_tool.py: a process that forks a child that execs, starts
// a thread, vforks a child that exits 4, and stops a child with SIGSTOP
// and continues it with SIGCONT (job control: strace listens for it).
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void* worker(void* arg) {
  printf("thread %ld\n", (long)arg);
  return NULL;
}

int main(void) {
  pid_t p = fork();
  if (p == 0) {
    printf("child\n");
    fflush(stdout);
    execl("/bin/echo", "echo", "exec'd", (char*)NULL);
    _exit(9);
  }
  int st;
  waitpid(p, &st, 0);
  printf("parent: child status %d\n", WEXITSTATUS(st));
  pthread_t th;
  pthread_create(&th, NULL, worker, (void*)7);
  pthread_join(th, NULL);
  pid_t v = vfork();
  if (v == 0) _exit(4);
  waitpid(v, &st, 0);
  printf("vfork child %d\n", WEXITSTATUS(st));
  pid_t s = fork();
  if (s == 0) {
    raise(SIGSTOP);
    _exit(8);
  }
  waitpid(s, &st, WUNTRACED);
  printf("stopped child: stopped %d by %d\n", WIFSTOPPED(st), WSTOPSIG(st));
  kill(s, SIGCONT);
  waitpid(s, &st, 0);
  printf("stopped child: exited %d\n", WEXITSTATUS(st));
  return 0;
}
