// scenario: waits that end by timeout: poll with no fds, ppoll with a
// timespec (which the raw syscall updates), epoll_wait on an empty set,
// select on nothing; elapsed times vary, lower bounds do not.
#include "scenario.h"

#include <poll.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>

static long elapsed_us(const struct timespec* a) {
  struct timespec b;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (b.tv_sec - a->tv_sec) * 1000000 + (b.tv_nsec - a->tv_nsec) / 1000;
}

int main(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  printf("poll(NULL, 0, 5): %ld\n", SYS(poll(NULL, 0, 5)));
  long us = elapsed_us(&t);
  printf("  >= 5 ms: %s\n", us >= 5000 ? "yes" : "no");
  nd("poll took %ld us\n", us);

  int p[2];
  SYS(pipe(p));
  struct pollfd pf = {.fd = p[0], .events = POLLIN};
  struct timespec to = {0, 7000000};
  clock_gettime(CLOCK_MONOTONIC, &t);
  printf("raw ppoll on an empty pipe: %ld\n", SYS(syscall(SYS_ppoll, &pf, 1, &to, NULL, 8)));
  us = elapsed_us(&t);
  printf("  >= 7 ms: %s, timespec left zero: %s\n", us >= 7000 ? "yes" : "no",
         to.tv_sec == 0 && to.tv_nsec == 0 ? "yes" : "no");
  nd("ppoll took %ld us\n", us);

  int ep = SYS(epoll_create1(0));
  struct epoll_event ev;
  clock_gettime(CLOCK_MONOTONIC, &t);
  printf("epoll_wait on nothing: %ld\n", SYS(epoll_wait(ep, &ev, 1, 4)));
  us = elapsed_us(&t);
  printf("  >= 4 ms: %s\n", us >= 4000 ? "yes" : "no");
  nd("epoll_wait took %ld us\n", us);

  struct timeval tv = {0, 3000};
  clock_gettime(CLOCK_MONOTONIC, &t);
  printf("select on nothing: %ld\n", SYS(select(0, NULL, NULL, NULL, &tv)));
  us = elapsed_us(&t);
  printf("  >= 3 ms: %s\n", us >= 3000 ? "yes" : "no");

  // Loop on short polls until 20 ms have passed: the iteration count varies.
  clock_gettime(CLOCK_MONOTONIC, &t);
  int rounds = 0;
  while (elapsed_us(&t) < 20000) {
    poll(&pf, 1, 1);
    rounds++;
  }
  nd("1 ms polls in 20 ms: %d\n", rounds);
  printf("polled at least once: %s\n", rounds > 0 ? "yes" : "no");
  SYS(close(ep));
  return 0;
}
