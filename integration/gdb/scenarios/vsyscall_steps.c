// scenario: stepping into, over and back across calls through the vsyscall
// page (gettimeofday, time): stepi reaches the page and the next one the
// caller; reverse-stepi and reverse-next undo them with the bytes written; a
// watchpoint on those fires both ways; gdb calls through the page. (time() may lag a tick.)
#include <stdio.h>
#include <sys/time.h>

typedef long (*gettimeofday_fn)(struct timeval*, void*);
typedef long (*time_fn)(long*);

int main(void) {
  struct timeval tv = {0, 0};
  long r = 5;
  r = ((gettimeofday_fn)0xffffffffff600000ul)(&tv, 0);
  long t = ((time_fn)0xffffffffff600400ul)(0);
  printf("r %ld, time within a second of gettimeofday's %d\n", r, t - (long)tv.tv_sec >= -1 && t - (long)tv.tv_sec <= 1);
  return 0;
}
