// scenario: a program that uses CPUID faulting itself (arch_prctl
// ARCH_SET_CPUID 0): its cpuid then raises SIGSEGV (SI_KERNEL) for its own
// handler; ARCH_GET_CPUID reports its setting; turned back on, cpuid
// answers again. The recorder keeps faulting on for itself throughout and
// plays the program's part.
// record-args: --cpuid-faulting
// requires: cpuid-faulting
#include "scenario.h"

#include <asm/prctl.h>
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/syscall.h>

static sigjmp_buf back;
static void on_segv(int sig, siginfo_t* info, void* ctx) {
  (void)ctx;
  printf("SIGSEGV: signal %d, code %d (SI_KERNEL %d)\n", sig, info->si_code, info->si_code == SI_KERNEL);
  siglongjmp(back, 1);
}

static long arch(int code, unsigned long arg) { return syscall(SYS_arch_prctl, code, arg); }

int main(void) {
  struct sigaction sa = {0};
  sa.sa_sigaction = on_segv;
  sa.sa_flags = SA_SIGINFO;
  SYS(sigaction(SIGSEGV, &sa, NULL));
  printf("ARCH_GET_CPUID: %ld\n", arch(ARCH_GET_CPUID, 0));
  long r = arch(ARCH_SET_CPUID, 0);
  if (r != 0) {
    printf("ARCH_SET_CPUID(0): %s\n", errname(errno));  // no CPUID faulting here
    return 0;
  }
  printf("ARCH_GET_CPUID after disabling: %ld\n", arch(ARCH_GET_CPUID, 0));
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!sigsetjmp(back, 1)) {
    __cpuid(0, a, b, c, d);
    printf("cpuid ran\n");
  }
  SYS(arch(ARCH_SET_CPUID, 1));
  printf("ARCH_GET_CPUID after enabling: %ld\n", arch(ARCH_GET_CPUID, 0));
  if (!sigsetjmp(back, 1)) {
    __cpuid(0, a, b, c, d);
    printf("cpuid ran, leaves > 0: %d\n", a > 0);
  }
  return 0;
}
