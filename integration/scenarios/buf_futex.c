// scenario: futex waits and wakes buffered by the preload library: a
// producer and a consumer hand 3000 items through a one-slot queue guarded
// by a mutex and two condition variables (every handover waits for the other
// thread), while two more threads take a shared mutex 2000 times each; then
// fcntl's F_GETFL/F_SETFL/F_GETFD/F_SETFD on a pipe. Results are printed by
// main after the joins.
// requires: threads
// expect-buffered: 2000
#include "thread_util.h"

#define ITEMS 3000
#define ROUNDS 2000

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t filled = PTHREAD_COND_INITIALIZER, emptied = PTHREAD_COND_INITIALIZER;
static int slot, full;
static uint64_t consumed_hash = FNV_INIT;

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void* producer(void* arg) {
  (void)arg;
  for (int i = 1; i <= ITEMS; i++) {
    PCHECK(pthread_mutex_lock(&lock));
    while (full) PCHECK(pthread_cond_wait(&emptied, &lock));
    slot = i * 7 + 3;
    full = 1;
    PCHECK(pthread_cond_signal(&filled));
    PCHECK(pthread_mutex_unlock(&lock));
  }
  return NULL;
}

static void* consumer(void* arg) {
  (void)arg;
  for (int i = 1; i <= ITEMS; i++) {
    PCHECK(pthread_mutex_lock(&lock));
    while (!full) PCHECK(pthread_cond_wait(&filled, &lock));
    consumed_hash = fnv1a(&slot, sizeof slot, consumed_hash);
    full = 0;
    PCHECK(pthread_cond_signal(&emptied));
    PCHECK(pthread_mutex_unlock(&lock));
  }
  return NULL;
}

static void* counting(void* arg) {
  long step = (long)arg;
  for (int i = 0; i < ROUNDS; i++) {
    PCHECK(pthread_mutex_lock(&counter_lock));
    long v = counter;
    for (volatile int spin = 0; spin < 50; spin++) {
    }
    counter = v + step;
    PCHECK(pthread_mutex_unlock(&counter_lock));
  }
  return NULL;
}

int main(void) {
  pthread_t t[4];
  PCHECK(pthread_create(&t[0], NULL, producer, NULL));
  PCHECK(pthread_create(&t[1], NULL, consumer, NULL));
  PCHECK(pthread_create(&t[2], NULL, counting, (void*)1L));
  PCHECK(pthread_create(&t[3], NULL, counting, (void*)1000L));
  for (int i = 0; i < 4; i++) PCHECK(pthread_join(t[i], NULL));
  printf("queue: %d items, hash %016llx\n", ITEMS, (unsigned long long)consumed_hash);
  printf("counter: %ld (expected %ld)\n", counter, (long)ROUNDS * 1001);

  int p[2];
  SYS(pipe(p));
  int fl = SYS(fcntl(p[0], F_GETFL));
  SYS(fcntl(p[0], F_SETFL, fl | O_NONBLOCK));
  int fl2 = SYS(fcntl(p[0], F_GETFL));
  int fd = SYS(fcntl(p[0], F_GETFD));
  SYS(fcntl(p[0], F_SETFD, FD_CLOEXEC));
  int fd2 = SYS(fcntl(p[0], F_GETFD));
  char c;
  ssize_t n = read(p[0], &c, 1);
  printf("fcntl: nonblock %d -> %d, cloexec %d -> %d, empty read %zd %s\n", !!(fl & O_NONBLOCK),
         !!(fl2 & O_NONBLOCK), fd & FD_CLOEXEC, fd2 & FD_CLOEXEC, n, n < 0 ? strerror(errno) : "");
  return 0;
}
