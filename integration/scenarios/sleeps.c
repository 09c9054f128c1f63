// scenario: nanosleep, clock_nanosleep relative and absolute (TIMER_ABSTIME)
// on two clocks, usleep; elapsed times are printed, only the lower bounds
// are checked.
#include "scenario.h"

#include <time.h>

static int64_t now_ns(clockid_t clk) {
  struct timespec ts;
  SYS(clock_gettime(clk, &ts));
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void) {
  int64_t t0 = now_ns(CLOCK_MONOTONIC);
  struct timespec req = {0, 20 * 1000 * 1000}, rem = {99, 99};
  SYS(nanosleep(&req, &rem));
  int64_t t1 = now_ns(CLOCK_MONOTONIC);
  printf("nanosleep 20ms: elapsed >= 20ms: %s\n", t1 - t0 >= 20000000 ? "yes" : "no");
  nd("nanosleep elapsed %lld ns, rem %ld.%09ld\n", (long long)(t1 - t0), (long)rem.tv_sec,
     rem.tv_nsec);

  req.tv_nsec = 10 * 1000 * 1000;
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL) == 0);
  int64_t t2 = now_ns(CLOCK_MONOTONIC);
  printf("clock_nanosleep relative 10ms: %s\n", t2 - t1 >= 10000000 ? "yes" : "no");

  int64_t deadline = t2 + 15000000;
  struct timespec abs = {deadline / 1000000000, deadline % 1000000000};
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL) == 0);
  int64_t t3 = now_ns(CLOCK_MONOTONIC);
  printf("clock_nanosleep absolute: woke after deadline: %s\n", t3 >= deadline ? "yes" : "no");
  nd("overshoot %lld ns\n", (long long)(t3 - deadline));

  int64_t r0 = now_ns(CLOCK_REALTIME);
  int64_t rd = r0 + 5000000;
  struct timespec rabs = {rd / 1000000000, rd % 1000000000};
  CHECK(clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &rabs, NULL) == 0);
  printf("realtime absolute: %s\n", now_ns(CLOCK_REALTIME) >= rd ? "yes" : "no");

  // A deadline in the past returns at once.
  struct timespec past = {0, 1};
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &past, NULL) == 0);
  SYS(usleep(3000));
  int64_t t4 = now_ns(CLOCK_MONOTONIC);
  printf("total >= 53ms: %s\n", t4 - t0 >= 53000000 ? "yes" : "no");
  nd("total %lld ns\n", (long long)(t4 - t0));
  struct timespec bad = {0, 2000000000};
  CHECK(clock_nanosleep(CLOCK_MONOTONIC, 0, &bad, NULL) == EINVAL);
  printf("invalid nsec: EINVAL\n");
  return 0;
}
