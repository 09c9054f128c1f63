// scenario: calls through the vsyscall page (0xffffffffff600000), as old
// static binaries make them: gettimeofday (with and without a timezone),
// time (returned and stored), getcpu, each with NULL arguments too, 300
// times in a loop under a 1 ms interval timer whose signals come near the
// calls. The kernel emulates these calls without a system call, so replay
// must give back the recorded values: the times go on "~" lines, which
// replay reproduces byte for byte. Without a vsyscall page (vsyscall=none),
// one "~" line.
#include "scenario.h"

#include <sched.h>
#include <signal.h>
#include <sys/time.h>
#include <time.h>

typedef long (*gettimeofday_fn)(struct timeval*, struct timezone*);
typedef long (*time_fn)(long*);
typedef long (*getcpu_fn)(unsigned*, unsigned*, void*);

static const gettimeofday_fn vgettimeofday = (gettimeofday_fn)0xffffffffff600000ul;
static const time_fn vtime = (time_fn)0xffffffffff600400ul;
static const getcpu_fn vgetcpu = (getcpu_fn)0xffffffffff600800ul;

static volatile sig_atomic_t ticks;
static void on_alarm(int sig) {
  (void)sig;
  ticks++;
}

int main(void) {
  if (!has_mapping_named("[vsyscall]")) {
    nd("no vsyscall page\n");
    return 0;
  }
  struct timeval tv = {0, 0};
  struct timezone tz = {-1, -1};
  long r = vgettimeofday(&tv, &tz);
  printf("gettimeofday: %ld, a plausible time %d\n", r, tv.tv_sec > 1500000000);
  nd("gettimeofday %ld.%06ld tz %d %d\n", (long)tv.tv_sec, (long)tv.tv_usec, tz.tz_minuteswest, tz.tz_dsttime);
  r = vgettimeofday(&tv, NULL);
  printf("gettimeofday without a timezone: %ld\n", r);
  nd("gettimeofday %ld.%06ld\n", (long)tv.tv_sec, (long)tv.tv_usec);
  printf("gettimeofday with neither: %ld\n", vgettimeofday(NULL, NULL));

  // time() reads the coarse clock, which may lag gettimeofday's by a tick:
  // across a second's boundary it can name the second before.
  long stored = 0;
  long t1 = vtime(NULL);
  long t2 = vtime(&stored);
  printf("time: stored equals returned %d, not before the first %d, near gettimeofday's %d\n", stored == t2, t2 >= t1,
         t1 - tv.tv_sec <= 2 && t1 + 1 >= tv.tv_sec);
  nd("time %ld %ld\n", t1, t2);

  unsigned cpu = 9999, node = 9999;
  r = vgetcpu(&cpu, &node, NULL);
  printf("getcpu: %ld, the cpu sched_getcpu names %d\n", r, (int)cpu == sched_getcpu());
  nd("getcpu cpu %u node %u\n", cpu, node);
  printf("getcpu with NULLs: %ld\n", vgetcpu(NULL, NULL, NULL));

  // Many calls with a timer's signals arriving among them.
  signal(SIGALRM, on_alarm);
  struct itimerval it = {{0, 1000}, {0, 1000}};
  CHECK(setitimer(ITIMER_REAL, &it, NULL) == 0);
  struct timeval prev = {0, 0};
  int backwards = 0;
  unsigned long sum = 0;
  for (int i = 0; i < 300; i++) {
    struct timeval now;
    vgettimeofday(&now, NULL);
    if (now.tv_sec < prev.tv_sec || (now.tv_sec == prev.tv_sec && now.tv_usec < prev.tv_usec)) backwards++;
    prev = now;
    sum += (unsigned long)now.tv_usec + (unsigned long)vtime(NULL);
    for (volatile int spin = 0; spin < 200000; spin++) {
    }
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  CHECK(setitimer(ITIMER_REAL, &off, NULL) == 0);
  printf("300 calls under a timer: went backwards %d times\n", backwards);
  nd("sum %lu, ticks %d\n", sum, (int)ticks);
  return 0;
}
