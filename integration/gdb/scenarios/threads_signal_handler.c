// scenario: a signal handler runs in a worker thread (pthread_kill); gdb
// stops in the handler in that thread, and reverse-stepping leaves the
// handler back to the worker's own code, in that thread
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static volatile sig_atomic_t handled;
static int ready[2], done[2];

static void on_usr1(int sig) {
  handled = sig;
}

static void* worker(void* arg) {
  (void)arg;
  char c;
  write(ready[1], "r", 1);
  read(done[0], &c, 1);
  return (void*)(long)handled;
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  pipe(ready);
  pipe(done);
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  char c;
  read(ready[0], &c, 1);
  pthread_kill(t, SIGUSR1);
  write(done[1], "d", 1);
  void* r;
  pthread_join(t, &r);
  printf("handled %ld\n", (long)r);
  return 0;
}
