/* clock_gettime, gettimeofday and time, as libc declares them, defined by
 * the preload library so that they override libc's for the program (see
 * clock_calls.S for why). Each is the system call the vDSO would have
 * answered; a failure sets errno through libc's own __errno_location, as
 * libc's functions do. Not linked into the unit tests, whose own clocks
 * would otherwise come through here. */
#include <sys/syscall.h>

#define BS_EXPORT __attribute__((visibility("default")))

long bs_clock_syscall(long nr, long a0, long a1) __attribute__((visibility("hidden")));

/* libc's: weak, since the library links nothing (a program without libc has
 * no errno to set, and never calls these through it). */
extern int *__errno_location(void) __attribute__((weak));

static long failed(long result) {
  if (__errno_location) *__errno_location() = (int)-result;
  return -1;
}

/* The kernel answers -4095..-1 for an error. */
static int is_error(long result) { return result < 0 && result >= -4095; }

BS_EXPORT int clock_gettime(int clock, void *ts) {
  long r = bs_clock_syscall(SYS_clock_gettime, clock, (long)ts);
  return is_error(r) ? (int)failed(r) : 0;
}

BS_EXPORT int gettimeofday(void *tv, void *tz) {
  long r = bs_clock_syscall(SYS_gettimeofday, (long)tv, (long)tz);
  return is_error(r) ? (int)failed(r) : 0;
}

BS_EXPORT long time(long *t) {
  long r = bs_clock_syscall(SYS_time, (long)t, 0);
  return is_error(r) ? failed(r) : r;
}
