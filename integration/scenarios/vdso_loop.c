// scenario: vDSO time functions called in tight loops, with control flow that
// depends on the values: a spin until 3 ms have passed, counting iterations,
// and branches on the low bits of the clock. sched_getcpu too.
#include "scenario.h"

#include <sched.h>
#include <sys/time.h>
#include <time.h>

int main(void) {
  struct timespec prev = {0, 0}, ts;
  int backwards = 0;
  unsigned long odd = 0;
  uint64_t h = FNV_INIT;
  for (int i = 0; i < 20000; i++) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (ts.tv_sec < prev.tv_sec || (ts.tv_sec == prev.tv_sec && ts.tv_nsec < prev.tv_nsec))
      backwards++;
    prev = ts;
    if (ts.tv_nsec & 1) odd++;
    h = fnv1a(&ts, sizeof ts, h);
  }
  printf("monotonic went backwards: %d times\n", backwards);
  nd("odd nsec %lu hash %016llx last %lld.%09ld\n", odd, (unsigned long long)h,
     (long long)ts.tv_sec, ts.tv_nsec);

  struct timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  unsigned long spins = 0;
  for (;;) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    spins++;
    int64_t d = (int64_t)(ts.tv_sec - start.tv_sec) * 1000000000 + ts.tv_nsec - start.tv_nsec;
    if (d >= 3000000) break;
  }
  nd("spins in 3 ms: %lu\n", spins);
  printf("spun at least once: %s\n", spins > 0 ? "yes" : "no");

  struct timeval tv;
  unsigned long usum = 0;
  for (int i = 0; i < 5000; i++) {
    gettimeofday(&tv, NULL);
    usum += tv.tv_usec;
  }
  nd("gettimeofday usec sum %lu\n", usum);
  time_t t = 0;
  for (int i = 0; i < 5000; i++) t ^= time(NULL);
  nd("time xor %ld\n", (long)t);
  struct timespec rt;
  for (int i = 0; i < 5000; i++) clock_gettime(CLOCK_REALTIME_COARSE, &rt);
  nd("realtime coarse %lld.%09ld\n", (long long)rt.tv_sec, rt.tv_nsec);
  int cpu = sched_getcpu();
  nd("cpu %d\n", cpu);
  printf("sched_getcpu valid: %s\n", cpu >= 0 ? "yes" : "no");
  return 0;
}
