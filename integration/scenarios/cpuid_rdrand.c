// scenario: a program that asks cpuid for RDRAND and RDSEED and uses them
// when present (as libstdc++'s std::random_device does), else getrandom.
// Under backstep cpuid hides them, so the random numbers come from a
// recorded system call and replay repeats them; natively they may come
// from the CPU. Also TSX's bits, and arch_prctl(ARCH_GET_CPUID).
// record-args: --cpuid-faulting
// requires: cpuid-faulting
#include "scenario.h"

#include <asm/prctl.h>
#include <cpuid.h>
#include <sys/random.h>
#include <sys/syscall.h>

__attribute__((target("rdrnd"))) static int from_rdrand(unsigned* v) {
  for (int i = 0; i < 10; i++) {
    if (__builtin_ia32_rdrand32_step(v)) return 1;
  }
  return 0;
}

int main(void) {
  unsigned eax, ebx, ecx, edx;
  CHECK(__get_cpuid(1, &eax, &ebx, &ecx, &edx));
  int rdrand = !!(ecx & bit_RDRND);
  int rdseed = 0, rtm = 0;
  if (__get_cpuid_max(0, NULL) >= 7) {
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    rdseed = !!(ebx & bit_RDSEED);
    rtm = !!(ebx & bit_RTM);
  }
  nd("rdrand %d rdseed %d rtm %d\n", rdrand, rdseed, rtm);
  unsigned values[4];
  for (int i = 0; i < 4; i++) {
    if (!rdrand || !from_rdrand(&values[i])) CHECK(getrandom(&values[i], sizeof values[i], 0) == 4);
  }
  nd("random: %08x %08x %08x %08x\n", values[0], values[1], values[2], values[3]);
  unsigned sum = 0;
  for (int i = 0; i < 4; i++) sum += values[i] % 7;
  nd("sum mod 7: %u\n", sum);
  // The vendor string and the leaf count are the machine's.
  __cpuid(0, eax, ebx, ecx, edx);
  char vendor[13];
  memcpy(vendor, &ebx, 4);
  memcpy(vendor + 4, &edx, 4);
  memcpy(vendor + 8, &ecx, 4);
  vendor[12] = 0;
  nd("vendor %s, %u leaves\n", vendor, eax);
  printf("ARCH_GET_CPUID: %ld\n", syscall(SYS_arch_prctl, ARCH_GET_CPUID, 0));
  return 0;
}
