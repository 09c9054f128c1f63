// scenario: waits with timeouts between threads: pthread_cond_timedwait and
// sem_timedwait that time out (nobody signals), then ones that are woken
// before their (long) deadline; pthread_timedjoin_np both ways.
// requires: threads
#include "thread_util.h"

#include <semaphore.h>
#include <time.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int ready;
static sem_t sem, release_worker;

static struct timespec in_ms(clockid_t clk, long ms) {
  struct timespec ts;
  SYS(clock_gettime(clk, &ts));
  ts.tv_sec += ms / 1000;
  ts.tv_nsec += (ms % 1000) * 1000000L;
  if (ts.tv_nsec >= 1000000000L) {
    ts.tv_sec++;
    ts.tv_nsec -= 1000000000L;
  }
  return ts;
}

static void* signaller(void* arg) {
  (void)arg;
  PCHECK(pthread_mutex_lock(&lock));
  ready = 1;
  PCHECK(pthread_cond_signal(&cond));
  PCHECK(pthread_mutex_unlock(&lock));
  SYS(sem_post(&sem));
  while (sem_wait(&release_worker) != 0) CHECK(errno == EINTR);
  return (void*)7;
}

int main(void) {
  SYS(sem_init(&sem, 0, 0));
  SYS(sem_init(&release_worker, 0, 0));
  struct timespec ts = in_ms(CLOCK_REALTIME, 20);
  PCHECK(pthread_mutex_lock(&lock));
  int rc = pthread_cond_timedwait(&cond, &lock, &ts);
  PCHECK(pthread_mutex_unlock(&lock));
  printf("cond_timedwait, nobody signals: %s\n", errname(rc));
  ts = in_ms(CLOCK_REALTIME, 20);
  rc = sem_timedwait(&sem, &ts) == 0 ? 0 : errno;
  printf("sem_timedwait, nobody posts: %s\n", errname(rc));

  pthread_t t;
  PCHECK(pthread_create(&t, NULL, signaller, NULL));
  // 60 s deadlines: reached only if the wake-up is lost.
  ts = in_ms(CLOCK_REALTIME, 60000);
  PCHECK(pthread_mutex_lock(&lock));
  rc = 0;
  while (!ready && rc == 0) rc = pthread_cond_timedwait(&cond, &lock, &ts);
  PCHECK(pthread_mutex_unlock(&lock));
  printf("cond_timedwait, signalled: %s\n", errname(rc));
  ts = in_ms(CLOCK_REALTIME, 60000);
  while ((rc = sem_timedwait(&sem, &ts) == 0 ? 0 : errno) == EINTR) {
  }
  printf("sem_timedwait, posted: %s\n", errname(rc));
  ts = in_ms(CLOCK_REALTIME, 20);
  void* ret = NULL;
  printf("timedjoin of a running thread: %s\n", errname(pthread_timedjoin_np(t, &ret, &ts)));
  SYS(sem_post(&release_worker));
  ts = in_ms(CLOCK_REALTIME, 60000);
  rc = pthread_timedjoin_np(t, &ret, &ts);
  printf("timedjoin after release: %s, returned %ld\n", errname(rc), (long)(intptr_t)ret);
  return 0;
}
