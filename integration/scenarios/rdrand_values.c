// scenario: a program that reads the hardware random generator with
// RDRAND and RDSEED, which no kernel can make trap: the recorder patches
// each site into a faulting instruction as the code is mapped and answers
// it with random bytes of its own, so replay sets the same registers. The
// forms: 64-bit into r9, 32-bit (upper half cleared), 16-bit (upper bits
// kept), RDSEED into r12d, and a thousand reads whose parities steer the
// program. The values vary from run to run ("~" lines); replay must print
// the recorded ones and take the same branches.
#include <cpuid.h>
#include <stdio.h>

static int has_rdrand(void) {
  unsigned a, b, c, d;
  return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_RDRND);
}

static int has_rdseed(void) {
  unsigned a, b, c, d;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_RDSEED);
}

static unsigned long long rdrand_r9(unsigned char* ok) {
  unsigned long long v;
  __asm__ volatile("rdrand %%r9\n\tsetc %1\n\tmov %%r9, %0" : "=r"(v), "=qm"(*ok) : : "r9", "cc");
  return v;
}

static unsigned long long rdrand_32(unsigned char* ok) {
  unsigned long long v = 0xffffffffffffffffULL;
  __asm__ volatile("rdrand %k0\n\tsetc %1" : "+r"(v), "=qm"(*ok) : : "cc");
  return v;
}

static unsigned long long rdrand_16(unsigned char* ok) {
  unsigned long long v = 0x1111222233334444ULL;
  __asm__ volatile("rdrand %w0\n\tsetc %1" : "+r"(v), "=qm"(*ok) : : "cc");
  return v;
}

static unsigned rdseed_r12d(unsigned char* ok) {
  unsigned v;
  __asm__ volatile("rdseed %%r12d\n\tsetc %1\n\tmov %%r12d, %0" : "=r"(v), "=qm"(*ok) : : "r12", "cc");
  return v;
}

int main(void) {
  if (!has_rdrand()) {
    printf("no RDRAND on this CPU\n");
    return 0;
  }
  unsigned char ok = 0;
  unsigned long long v = rdrand_r9(&ok);
  printf("~r9 %llx\n", v);
  printf("64-bit: carry %d\n", ok);
  v = rdrand_32(&ok);
  printf("~32-bit %llx\n", v);
  printf("32-bit: carry %d, upper half clear %d\n", ok, (v >> 32) == 0);
  v = rdrand_16(&ok);
  printf("~16-bit %llx\n", v);
  printf("16-bit: carry %d, upper bits kept %d\n", ok, (v >> 16) == 0x111122223333ULL);
  if (has_rdseed()) {
    unsigned s = rdseed_r12d(&ok);
    printf("~rdseed %x\n", s);
    printf("rdseed: a carry or none %d\n", ok == 0 || ok == 1);
  }
  int odd = 0;
  for (int i = 0; i < 1000; i++) odd += (int)(rdrand_r9(&ok) & 1);
  printf("~odd %d of 1000\n", odd);
  printf("%s\n", odd > 300 && odd < 700 ? "about half odd" : "skewed");
  return 0;
}
