// What a debugging tool recorded with backstep (strace -f, gdb) traces in
// run_traced_by_tool.py: a process that forks a child that execs, starts
// a thread, and vforks a child that exits 4.
#include <pthread.h>
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
  return 0;
}
