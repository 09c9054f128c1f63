// scenario: capget with header versions 3 and 1 (two and one capability
// structs), a data-less probe, and an unknown version the kernel answers with
// EINVAL after writing its preferred version into the header. The values
// printed and the path taken depend on what the kernel wrote.
#include "scenario.h"

#include <linux/capability.h>
#include <sys/syscall.h>

static long capget_raw(struct __user_cap_header_struct* h, struct __user_cap_data_struct* d) {
  return syscall(SYS_capget, h, d);
}

int main(void) {
  struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct d[2];
  memset(d, 0x5a, sizeof d);
  SYS(capget_raw(&h, d));
  printf("v3: effective %08x %08x permitted %08x %08x inheritable %08x %08x\n", d[0].effective,
         d[1].effective, d[0].permitted, d[1].permitted, d[0].inheritable, d[1].inheritable);
  if (d[0].effective & (1u << CAP_SYS_PTRACE)) {
    printf("CAP_SYS_PTRACE: yes (pid %s)\n", syscall(SYS_getpid) > 0 ? "ok" : "bad");
  } else {
    printf("CAP_SYS_PTRACE: no (ppid %s)\n", syscall(SYS_getppid) > 0 ? "ok" : "bad");
  }

  struct __user_cap_header_struct h1 = {_LINUX_CAPABILITY_VERSION_1, 0};
  struct __user_cap_data_struct d1[2];
  memset(d1, 0x5a, sizeof d1);
  SYS(capget_raw(&h1, d1));
  printf("v1: effective %08x, second struct untouched: %s\n", d1[0].effective,
         d1[1].effective == 0x5a5a5a5a ? "yes" : "no");

  struct __user_cap_header_struct probe = {_LINUX_CAPABILITY_VERSION_3, 0};
  printf("probe without data: %ld\n", capget_raw(&probe, NULL));

  struct __user_cap_header_struct bad = {0x12345678, 0};
  long r = capget_raw(&bad, d);
  printf("unknown version: %ld %s, kernel prefers %08x\n", r, r < 0 ? errname(errno) : "-", bad.version);
  return 0;
}
