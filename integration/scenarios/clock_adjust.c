// scenario: reading the kernel clock discipline with adjtimex and
// clock_adjtime (modes 0: nothing is changed), and setting clocks with
// arguments the kernel rejects (the machine's clock is never changed):
// clock_settime on a clock that cannot be set and with a bad timespec,
// settimeofday with a bad timeval.
#include "scenario.h"

#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <time.h>

static void print_timex(const char* label, long r, const struct timex* t) {
  // The state and the clock's values vary; replay must reproduce them all.
  printf("%s: %s\n", label, r >= 0 ? "ok" : errname(errno));
  nd("%s state %ld offset %ld freq %ld maxerror %ld esterror %ld status %d tick %ld time %ld.%06ld tai %d\n",
     label, r, t->offset, t->freq, t->maxerror, t->esterror, t->status, t->tick, (long)t->time.tv_sec,
     (long)t->time.tv_usec, t->tai);
  nd("%s checksum %016llx\n", label, (unsigned long long)fnv1a(t, sizeof *t, FNV_INIT));
}

int main(void) {
  struct timex t;
  memset(&t, 0x5a, sizeof t);
  t.modes = 0;
  long r = syscall(SYS_adjtimex, &t);
  print_timex("adjtimex", r, &t);

  struct timex c;
  memset(&c, 0x5a, sizeof c);
  c.modes = 0;
  r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, &c);
  print_timex("clock_adjtime", r, &c);

  // CLOCK_MONOTONIC cannot be set: EINVAL, nothing changes.
  struct timespec ts = {1, 0};
  errno = 0;
  r = syscall(SYS_clock_settime, CLOCK_MONOTONIC, &ts);
  printf("clock_settime(MONOTONIC): %ld %s\n", r, errname(errno));
  // A nanosecond count out of range: EINVAL before anything is set.
  struct timespec bad = {1, 2000000000L};
  errno = 0;
  r = syscall(SYS_clock_settime, CLOCK_REALTIME, &bad);
  printf("clock_settime(bad timespec): %ld %s\n", r, errname(errno));
  // An unknown clock id.
  errno = 0;
  r = syscall(SYS_clock_settime, 1000, &ts);
  printf("clock_settime(clock 1000): %ld %s\n", r, errname(errno));

  // Microseconds out of range: EINVAL. The timezone is left alone (a
  // timezone argument would change the kernel's).
  struct timeval tv = {1, 2000000};
  errno = 0;
  r = syscall(SYS_settimeofday, &tv, NULL);
  printf("settimeofday(bad timeval): %ld %s\n", r, errname(errno));

  return 0;
}
