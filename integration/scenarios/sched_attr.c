// scenario: sched_getattr with the current and a smaller struct size,
// sched_setattr with the attributes it read (no change), and sched_setattr
// with a size the kernel rejects with E2BIG after writing the size it
// expects back into the struct. ioprio_get/ioprio_set on this process.
#include "scenario.h"

#include <linux/sched/types.h>
#include <sys/syscall.h>

#define IOPRIO_WHO_PROCESS 1

int main(void) {
  struct sched_attr a;
  memset(&a, 0x5a, sizeof a);
  long r = syscall(SYS_sched_getattr, 0, &a, sizeof a, 0);
  CHECK(r == 0);
  printf("getattr: size %u policy %u nice %d priority %u\n", a.size, a.sched_policy, a.sched_nice,
         a.sched_priority);

  // The first version of the struct (48 bytes): the kernel copies only that.
  unsigned char small[64];
  memset(small, 0x5a, sizeof small);
  r = syscall(SYS_sched_getattr, 0, small, 48, 0);
  struct sched_attr* s = (struct sched_attr*)small;
  printf("getattr(48): %ld size %u, byte 48 untouched: %s\n", r, s->size, small[48] == 0x5a ? "yes" : "no");

  r = syscall(SYS_sched_setattr, 0, &a, 0);
  printf("setattr(same): %ld %s\n", r, r < 0 ? errname(errno) : "-");

  struct sched_attr tiny;
  memset(&tiny, 0, sizeof tiny);
  tiny.size = 4;  // below the first version: E2BIG, and the kernel's size written back
  errno = 0;
  r = syscall(SYS_sched_setattr, 0, &tiny, 0);
  printf("setattr(size 4): %ld %s, size now %u\n", r, errname(errno), tiny.size);

  long prio = syscall(SYS_ioprio_get, IOPRIO_WHO_PROCESS, 0);
  printf("ioprio_get: %s\n", prio >= 0 ? "ok" : errname(errno));
  nd("ioprio %ld\n", prio);
  if (prio >= 0) {
    r = syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, prio);
    printf("ioprio_set(same): %ld %s\n", r, r < 0 ? errname(errno) : "-");
  }
  errno = 0;
  r = syscall(SYS_ioprio_set, 99, 0, 0);
  printf("ioprio_set(bad who): %ld %s\n", r, errname(errno));
  return 0;
}
