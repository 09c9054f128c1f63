// scenario: eventfd counters: accumulate, read resets, EFD_SEMAPHORE counts
// down by one, EFD_NONBLOCK gives EAGAIN, poll readiness, and the counter
// carrying a value derived from the clock.
#include "scenario.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <time.h>

int main(void) {
  int e = SYS(eventfd(5, EFD_CLOEXEC | EFD_NONBLOCK));
  uint64_t v = 3;
  SYS(write(e, &v, sizeof v));
  SYS(write(e, &v, sizeof v));
  CHECK(SYS(read(e, &v, sizeof v)) == 8);
  printf("counter: %llu\n", (unsigned long long)v);
  errno = 0;
  CHECK(read(e, &v, sizeof v) == -1);
  printf("read at zero: %s\n", errname(errno));
  struct pollfd pf = {.fd = e, .events = POLLIN | POLLOUT};
  SYS(poll(&pf, 1, 0));
  printf("poll at zero: in %d out %d\n", !!(pf.revents & POLLIN), !!(pf.revents & POLLOUT));

  int s = SYS(eventfd(0, EFD_SEMAPHORE | EFD_NONBLOCK));
  v = 3;
  SYS(write(s, &v, sizeof v));
  int reads = 0;
  while (read(s, &v, sizeof v) == 8) {
    CHECK(v == 1);
    reads++;
  }
  printf("semaphore reads: %d\n", reads);

  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t stamp = (uint64_t)ts.tv_nsec + 1;
  SYS(write(e, &stamp, sizeof stamp));
  uint64_t back = 0;
  SYS(read(e, &back, sizeof back));
  printf("clock value through eventfd intact: %s\n", back == stamp ? "yes" : "no");
  nd("value %llu\n", (unsigned long long)back);
  errno = 0;
  CHECK(write(e, &v, 4) == -1);
  printf("short write: %s\n", errname(errno));
  v = UINT64_MAX;
  errno = 0;
  CHECK(write(e, &v, sizeof v) == -1);
  printf("write of UINT64_MAX: %s\n", errname(errno));
  SYS(close(s));
  SYS(close(e));
  return 0;
}
