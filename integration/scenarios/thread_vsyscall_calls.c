// scenario: calls through the vsyscall page from two threads while a third
// computes and a 1 ms timer runs: the recorder interrupts threads to hand
// over and to deliver the timer's signals, and such an interrupt can come
// while a thread returns from its call (engine/core/vsyscall.h). Each
// caller checks that its clock never goes backwards. Without a vsyscall
// page, one "~" line.
// requires: threads
#include "scenario.h"

#include <pthread.h>
#include <signal.h>
#include <sys/time.h>

typedef long (*gettimeofday_fn)(struct timeval*, struct timezone*);
static const gettimeofday_fn vgettimeofday = (gettimeofday_fn)0xffffffffff600000ul;

static volatile int stop;
static volatile sig_atomic_t ticks;
static void on_alarm(int sig) {
  (void)sig;
  ticks++;
}

static void* spin(void* arg) {
  (void)arg;
  volatile unsigned long x = 0;
  while (!stop) x++;
  return NULL;
}

static void* caller(void* arg) {
  (void)arg;
  long backwards = 0;
  struct timeval prev = {0, 0};
  for (int i = 0; i < 6000; i++) {
    struct timeval tv;
    vgettimeofday(&tv, NULL);
    if (tv.tv_sec < prev.tv_sec || (tv.tv_sec == prev.tv_sec && tv.tv_usec < prev.tv_usec)) backwards++;
    prev = tv;
  }
  return (void*)backwards;
}

int main(void) {
  if (!has_mapping_named("[vsyscall]")) {
    nd("no vsyscall page\n");
    return 0;
  }
  signal(SIGALRM, on_alarm);
  struct itimerval it = {{0, 1000}, {0, 1000}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  pthread_t a, b, c;
  CHECK(pthread_create(&a, NULL, spin, NULL) == 0);
  CHECK(pthread_create(&b, NULL, caller, NULL) == 0);
  CHECK(pthread_create(&c, NULL, caller, NULL) == 0);
  void *rb, *rc;
  CHECK(pthread_join(b, &rb) == 0);
  CHECK(pthread_join(c, &rc) == 0);
  stop = 1;
  CHECK(pthread_join(a, NULL) == 0);
  struct itimerval off = {{0, 0}, {0, 0}};
  CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
  printf("6000 calls in each of two threads: went backwards %ld and %ld times\n", (long)rb, (long)rc);
  nd("ticks %d\n", (int)ticks);
  return 0;
}
