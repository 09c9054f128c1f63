// scenario: clock_gettime on every clock, clock_getres, gettimeofday, time(),
// times(), through the vDSO and as raw syscalls; values printed, only their
// relations are checked.
#include "scenario.h"

#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>

static const struct {
  clockid_t id;
  const char* name;
} clocks[] = {
    {CLOCK_REALTIME, "REALTIME"},
    {CLOCK_MONOTONIC, "MONOTONIC"},
    {CLOCK_MONOTONIC_RAW, "MONOTONIC_RAW"},
    {CLOCK_REALTIME_COARSE, "REALTIME_COARSE"},
    {CLOCK_MONOTONIC_COARSE, "MONOTONIC_COARSE"},
    {CLOCK_BOOTTIME, "BOOTTIME"},
    {CLOCK_TAI, "TAI"},
    {CLOCK_PROCESS_CPUTIME_ID, "PROCESS_CPUTIME_ID"},
    {CLOCK_THREAD_CPUTIME_ID, "THREAD_CPUTIME_ID"},
};

int main(void) {
  for (size_t i = 0; i < sizeof clocks / sizeof clocks[0]; i++) {
    struct timespec a, b, res;
    SYS(clock_gettime(clocks[i].id, &a));
    SYS(syscall(SYS_clock_gettime, clocks[i].id, &b));
    SYS(clock_getres(clocks[i].id, &res));
    nd("%-18s vdso %lld.%09ld syscall %lld.%09ld\n", clocks[i].name, (long long)a.tv_sec,
       a.tv_nsec, (long long)b.tv_sec, b.tv_nsec);
    nd("%-18s res %ld.%09ld\n", clocks[i].name, (long)res.tv_sec, res.tv_nsec);
    int64_t d = (int64_t)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec);
    int coarse = clocks[i].id == CLOCK_REALTIME_COARSE || clocks[i].id == CLOCK_MONOTONIC_COARSE;
    printf("%-18s syscall not before vdso: %s, nsec in range: %s\n", clocks[i].name,
           d >= 0 || coarse ? "yes" : "no",
           a.tv_nsec >= 0 && a.tv_nsec < 1000000000 ? "yes" : "no");
  }
  errno = 0;
  struct timespec ts;
  CHECK(clock_gettime((clockid_t)12345, &ts) == -1);
  printf("bad clock id: %s\n", errname(errno));

  struct timeval tv, tv2;
  SYS(gettimeofday(&tv, NULL));
  SYS(syscall(SYS_gettimeofday, &tv2, NULL));
  nd("gettimeofday %ld.%06ld raw %ld.%06ld\n", (long)tv.tv_sec, (long)tv.tv_usec,
     (long)tv2.tv_sec, (long)tv2.tv_usec);
  time_t t1 = time(NULL);
  time_t t2 = 0;
  long t3 = syscall(SYS_time, &t2);
  nd("time %ld raw %ld (stored %ld)\n", (long)t1, t3, (long)t2);
  // time() reads the coarse clock, which can lag gettimeofday by a tick:
  // just after a second boundary it is one second behind.
  printf("time() close to gettimeofday: %s\n",
         t1 - tv.tv_sec >= -1 && t1 - tv.tv_sec <= 5 ? "yes" : "no");
  struct tms tm;
  clock_t c = times(&tm);
  nd("times %ld utime %ld stime %ld\n", (long)c, (long)tm.tms_utime, (long)tm.tms_stime);
  nd("clock() %ld\n", (long)clock());
  char date[64];
  struct tm* lt = gmtime(&t1);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", lt);
  nd("UTC %s\n", date);
  return 0;
}
