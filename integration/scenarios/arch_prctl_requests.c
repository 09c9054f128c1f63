// scenario: arch_prctl requests that write a word through their pointer
// (ARCH_GET_FS, ARCH_GET_GS, ARCH_GET_XCOMP_SUPP, ARCH_GET_XCOMP_PERM,
// ARCH_GET_XCOMP_GUEST_PERM) are recorded by what they wrote, and a request
// for AMX's tile state (ARCH_REQ_XCOMP_PERM; granted only on a CPU with AMX)
// is made again in replay when it was granted. The values are printed as
// the program got them.
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static void show(const char* name, long request) {
  unsigned long value = 0x5a5a5a5a;
  errno = 0;
  long r = syscall(SYS_arch_prctl, request, &value);
  printf("%s: %ld errno %d value %#lx\n", name, r, r ? errno : 0, value);
}

int main(void) {
  unsigned long fs = 0;
  syscall(SYS_arch_prctl, 0x1003, &fs);
  printf("ARCH_GET_FS matches the thread pointer: %s\n",
         fs == (unsigned long)__builtin_thread_pointer() ? "yes" : "no");
  show("ARCH_GET_GS", 0x1004);
  show("ARCH_GET_XCOMP_SUPP", 0x1021);
  show("ARCH_GET_XCOMP_PERM", 0x1022);
  errno = 0;
  long r = syscall(SYS_arch_prctl, 0x1023, 18 /* XFEATURE_XTILEDATA */);
  printf("ARCH_REQ_XCOMP_PERM: %ld errno %d\n", r, r ? errno : 0);
  show("ARCH_GET_XCOMP_PERM", 0x1022);
  show("ARCH_GET_XCOMP_GUEST_PERM", 0x1024);
  return 0;
}
