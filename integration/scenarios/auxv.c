// scenario: the auxiliary vector: AT_RANDOM's 16 bytes (printed), other
// getauxval entries, and /proc/self/auxv agreeing with getauxval.
#include "scenario.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/auxv.h>

int main(void) {
  const unsigned char* rnd = (const unsigned char*)getauxval(AT_RANDOM);
  CHECK(rnd != NULL);
  nd_hex("AT_RANDOM", rnd, 16);
  // glibc derives the stack protector canary from AT_RANDOM.
  uintptr_t canary;
  __asm__("mov %%fs:0x28, %0" : "=r"(canary));
  uintptr_t from_random;
  memcpy(&from_random, rnd, sizeof from_random);
  printf("canary derived from AT_RANDOM: %s\n",
         canary == (from_random & ~(uintptr_t)0xff) ? "yes" : "no");
  nd("canary %016lx\n", (unsigned long)canary);

  printf("AT_PAGESZ %lu\n", getauxval(AT_PAGESZ));
  printf("AT_CLKTCK %lu\n", getauxval(AT_CLKTCK));
  printf("AT_SECURE %lu\n", getauxval(AT_SECURE));
  printf("AT_PHENT %lu\n", getauxval(AT_PHENT));
  printf("AT_UID is getuid: %s\n", getauxval(AT_UID) == getuid() ? "yes" : "no");
  printf("AT_PLATFORM %s\n", (const char*)getauxval(AT_PLATFORM));
  const char* execfn = (const char*)getauxval(AT_EXECFN);
  const char* base = strrchr(execfn, '/');
  printf("AT_EXECFN basename %s\n", base ? base + 1 : execfn);
  nd("AT_EXECFN %s\n", execfn);
  nd("AT_ENTRY %lx AT_BASE %lx AT_PHDR %lx AT_SYSINFO_EHDR %lx\n", getauxval(AT_ENTRY),
     getauxval(AT_BASE), getauxval(AT_PHDR), getauxval(AT_SYSINFO_EHDR));
  nd("AT_HWCAP %lx AT_HWCAP2 %lx AT_MINSIGSTKSZ %lu\n", getauxval(AT_HWCAP),
     getauxval(AT_HWCAP2), getauxval(AT_MINSIGSTKSZ));
  errno = 0;
  unsigned long unknown = getauxval(999);
  printf("unknown entry: %lu %s\n", unknown, errno == ENOENT ? "ENOENT" : "no error");

  int fd = SYS(open("/proc/self/auxv", O_RDONLY));
  Elf64_auxv_t av[64];
  ssize_t n = SYS(read(fd, av, sizeof av));
  SYS(close(fd));
  int entries = 0, agree = 0;
  for (size_t i = 0; i < n / sizeof av[0] && av[i].a_type != AT_NULL; i++) {
    // glibc answers AT_HWCAP/AT_HWCAP2 from its own cpu feature bits.
    if (av[i].a_type == AT_HWCAP || av[i].a_type == AT_HWCAP2) continue;
    entries++;
    unsigned long g = getauxval(av[i].a_type);
    if (g == av[i].a_un.a_val)
      agree++;
    else
      printf("/proc/self/auxv entry %lu disagrees\n", (unsigned long)av[i].a_type);
  }
  printf("/proc/self/auxv entries all agree with getauxval: %s\n", agree == entries ? "yes" : "no");
  nd("auxv entries %d\n", entries);
  return 0;
}
