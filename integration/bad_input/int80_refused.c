// Makes the 32-bit system call whose number is argv[1] with int 0x80, its
// first argument a path below 4 GiB ("int80-made"), the second 0755: 39 is
// mkdir there (getpid in the 64-bit table), 5 is open (fstat), 10 unlink
// (munmap). backstep records none of these: it must refuse the call before
// it runs (the directory or file is never made), never record it as the
// 64-bit call of the same number. Prints "before" and "after" around it.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char* low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (low == MAP_FAILED) return 2;
  strcpy(low, "int80-made");
  printf("before\n");
  fflush(stdout);
  long r;
  __asm__ volatile("int $0x80" : "=a"(r) : "a"(atol(argv[1])), "b"(low), "c"(0755) : "memory");
  printf("after: %ld\n", r);
  return 0;
}
