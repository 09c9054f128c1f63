// scenario: clock reads performed by the preload library without a stop.
// libc's clock_gettime, gettimeofday and time are overridden by the library
// (preload/clock_calls.c): from the second call on, each is logged in the
// thread's buffer. Three threads read every clock in loops and check that
// the monotonic clocks never go back; errors (an unknown clock) must still
// come back as -1 with errno EINVAL, as from libc. Replay must give every
// value back.
// requires: threads
// expect-buffered: 2500
#include "thread_util.h"

#include <sys/time.h>
#include <time.h>

#define READS 1000

static long went_back[3], odd[3];

static void* reader(void* arg) {
  long id = (long)arg;
  struct timespec last = {0, 0}, now;
  long back = 0, sum = 0;
  for (int i = 0; i < READS; i++) {
    SYS(clock_gettime(CLOCK_MONOTONIC, &now));
    if (now.tv_sec < last.tv_sec || (now.tv_sec == last.tv_sec && now.tv_nsec < last.tv_nsec)) back++;
    last = now;
    sum += now.tv_nsec & 1;
  }
  went_back[id] = back;
  odd[id] = sum;
  return NULL;
}

int main(void) {
  pthread_t t[2];
  for (long i = 0; i < 2; i++) PCHECK(pthread_create(&t[i], NULL, reader, (void*)(i + 1)));
  reader((void*)0);
  for (int i = 0; i < 2; i++) PCHECK(pthread_join(t[i], NULL));
  for (int i = 0; i < 3; i++) {
    printf("thread %d: %d monotonic reads, %ld went back\n", i, READS, went_back[i]);
    nd("thread %d: odd nanoseconds %ld\n", i, odd[i]);
  }

  struct timeval tv;
  struct timespec ts;
  time_t previous = 0, stored = 0;
  int later = 0;
  for (int i = 0; i < 300; i++) {
    SYS(gettimeofday(&tv, NULL));
    time_t now = time(&stored);
    CHECK(now == stored);
    if (now >= previous) later++;
    previous = now;
    SYS(clock_gettime(CLOCK_REALTIME, &ts));
    CHECK(ts.tv_sec + 1 >= tv.tv_sec);
  }
  printf("time() never went back: %s\n", later == 300 ? "yes" : "no");
  nd("gettimeofday %lld.%06ld\n", (long long)tv.tv_sec, (long)tv.tv_usec);

  for (int i = 0; i < 3; i++) {
    errno = 0;
    int r = clock_gettime((clockid_t)987654, &ts);
    printf("unknown clock: %d, errno %s\n", r, errno == EINVAL ? "EINVAL" : strerror(errno));
  }
  return 0;
}
