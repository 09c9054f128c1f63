// scenario: perf_event_open on software events of this process: a task
// clock counter read twice (its values are recorded reads), an attr too
// small (E2BIG: the kernel writes the size it wants back into attr), and a
// hardware counter (ENOENT on machines without one). Whatever the kernel
// answers is recorded and replayed.
#include "scenario.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>

static long perf_open(struct perf_event_attr* attr) { return syscall(SYS_perf_event_open, attr, 0, -1, -1, 0); }

int main(void) {
  struct perf_event_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.exclude_kernel = 1;
  errno = 0;
  long fd = perf_open(&attr);
  printf("task clock: %s\n", fd >= 0 ? "opened" : errname(errno));
  if (fd >= 0) {
    unsigned long long first = 0, second = 0;
    printf("read: %zd\n", read((int)fd, &first, sizeof first));
    for (volatile int i = 0; i < 1000000; i++) {
    }
    printf("read: %zd\n", read((int)fd, &second, sizeof second));
    printf("counter moved forward: %s\n", second >= first ? "yes" : "no");
    nd("task clock %llu then %llu\n", first, second);
    close((int)fd);
  }

  struct perf_event_attr small;
  memset(&small, 0, sizeof small);
  small.type = PERF_TYPE_SOFTWARE;
  small.size = 8;  // below PERF_ATTR_SIZE_VER0
  errno = 0;
  fd = perf_open(&small);
  printf("attr size 8: %ld %s, size now %s\n", fd, errname(errno), small.size >= PERF_ATTR_SIZE_VER0 ? "larger" : "8");

  struct perf_event_attr hw;
  memset(&hw, 0, sizeof hw);
  hw.size = sizeof hw;
  hw.type = PERF_TYPE_HARDWARE;
  hw.config = PERF_COUNT_HW_INSTRUCTIONS;
  hw.exclude_kernel = 1;
  errno = 0;
  fd = perf_open(&hw);
  printf("hardware instructions: %s\n", fd >= 0 ? "opened" : errname(errno));
  if (fd >= 0) close((int)fd);
  return 0;
}
