// scenario: main returns (exit_group) while one detached thread is blocked
// in read() on a pipe nobody writes, another in nanosleep for 1000 s, and a
// third in pthread_cond_wait: the process ends at once with main's status.
// expect-exit: 3
// requires: threads
#include "thread_util.h"

#include <time.h>

static int fds[2];
static volatile pid_t tids[3];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void* reader(void* arg) {
  (void)arg;
  char c;
  publish_tid(&tids[0]);
  SYS(read(fds[0], &c, 1));
  return NULL;
}
static void* sleeper(void* arg) {
  (void)arg;
  publish_tid(&tids[1]);
  struct timespec ts = {1000, 0};
  nanosleep(&ts, NULL);
  return NULL;
}
static void* waiter(void* arg) {
  (void)arg;
  PCHECK(pthread_mutex_lock(&lock));
  publish_tid(&tids[2]);
  for (;;) PCHECK(pthread_cond_wait(&never, &lock));
  return NULL;
}

int main(void) {
  SYS(pipe(fds));
  void* (*fns[3])(void*) = {reader, sleeper, waiter};
  long calls[3] = {SYS_read, SYS_nanosleep, SYS_futex};
  pthread_attr_t attr;
  PCHECK(pthread_attr_init(&attr));
  PCHECK(pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED));
  for (int i = 0; i < 3; i++) {
    pthread_t t;
    PCHECK(pthread_create(&t, &attr, fns[i], NULL));
  }
  for (int i = 0; i < 3; i++) {
    long nr = calls[i];
    // glibc's nanosleep is clock_nanosleep underneath.
    if (nr == SYS_nanosleep) {
      pid_t tid = await_tid(&tids[i]);
      long now;
      while ((now = thread_syscall_of(tid)) != SYS_clock_nanosleep && now != SYS_nanosleep) sched_yield();
    } else {
      wait_blocked_in(await_tid(&tids[i]), nr);
    }
  }
  printf("reader in read, sleeper in nanosleep, waiter in futex: main returns 3\n");
  return 3;
}
