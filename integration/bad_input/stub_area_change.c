// Changes the memory just below its own executable, where backstep maps the
// stub area of the executable's patched sites (engine/core/tool_page.h),
// in the way argv[1] names: "munmap", "mprotect" (read-write), "madvise"
// (MADV_DONTNEED, which would zero the stubs) or "mmap-fixed" (an anonymous
// MAP_FIXED mapping over it). Natively nothing is mapped there (munmap and
// mmap succeed, mprotect and madvise fail with ENOMEM); under `backstep record` the call must be refused before it runs,
// with a message naming the stub area, since the patched sites would jump
// into whatever is left. Prints "before" and "after" around it.
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

extern char __executable_start[];

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  // The area ends at least 64 KiB below the executable's first mapping and
  // is 128 KiB long: these 2 MiB cover it.
  unsigned long len = 0x200000;
  char* below = (char*)(((unsigned long)__executable_start & ~0xfffUL) - len);
  printf("before\n");
  fflush(stdout);
  long r;
  if (strcmp(argv[1], "munmap") == 0) {
    r = munmap(below, len);
  } else if (strcmp(argv[1], "mprotect") == 0) {
    r = mprotect(below, len, PROT_READ | PROT_WRITE);
  } else if (strcmp(argv[1], "madvise") == 0) {
    r = madvise(below, len, MADV_DONTNEED);
  } else if (strcmp(argv[1], "mmap-fixed") == 0) {
    r = mmap(below, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == below ? 0 : -1;
  } else {
    return 2;
  }
  printf("after: %ld\n", r);
  return 0;
}
