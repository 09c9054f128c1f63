// scenario: four threads take turns under a mutex and a condition variable
// (futex waits and wakes, one thread at a time in the kernel's queue), a
// token is handed between two threads through an atomic flag with no
// system call in either wait loop (the recorder must switch threads at
// forced positions), and a thread blocked in read() on a pipe gets what the
// main thread writes.
#include "scenario.h"

#include <pthread.h>
#include <stdatomic.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static long total;
static int turn;

static void* take_turns(void* arg) {
  long id = (long)arg;
  for (int i = 0; i < 100; ++i) {
    pthread_mutex_lock(&lock);
    while (turn != id) pthread_cond_wait(&changed, &lock);
    total = total * 3 + id + i;
    turn = (turn + 1) % 4;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
  }
  return NULL;
}

static _Atomic int token;
static long handed;

static void* pong(void* arg) {
  (void)arg;
  for (int i = 0; i < 20; ++i) {
    while (atomic_load(&token) != 1) {
    }
    handed = handed * 7 + i;
    atomic_store(&token, 0);
  }
  return NULL;
}

static void* drain(void* arg) {
  int fd = *(int*)arg;
  char buf[64];
  long n, got = 0;
  while ((n = read(fd, buf, sizeof buf)) > 0) got += n;
  return (void*)got;
}

int main(void) {
  pthread_t t[4];
  for (long i = 0; i < 4; ++i) CHECK(pthread_create(&t[i], NULL, take_turns, (void*)i) == 0);
  for (int i = 0; i < 4; ++i) CHECK(pthread_join(t[i], NULL) == 0);
  printf("turns: total %ld\n", total);

  pthread_t p;
  CHECK(pthread_create(&p, NULL, pong, NULL) == 0);
  for (int i = 0; i < 20; ++i) {
    atomic_store(&token, 1);
    while (atomic_load(&token) != 0) {
    }
  }
  CHECK(pthread_join(p, NULL) == 0);
  printf("token: handed %ld\n", handed);

  int fds[2];
  SYS(pipe(fds));
  pthread_t r;
  CHECK(pthread_create(&r, NULL, drain, &fds[0]) == 0);
  for (int i = 0; i < 50; ++i) SYS(write(fds[1], "0123456789", 10));
  SYS(close(fds[1]));
  void* got;
  CHECK(pthread_join(r, &got) == 0);
  printf("pipe: read %ld bytes\n", (long)got);
  return 0;
}
