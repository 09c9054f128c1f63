// scenario: the program throws away the memory of its own syscall buffer
// with MADV_DONTNEED, between buffered writes. The library maps its buffer
// privately, so its bytes read as zeros afterwards (its mode word too: the
// library stops buffering), in the recording as in replay, although the
// recorder shares the buffer with a view of its own (buffer_view.h). The
// program finds the buffer in /proc/self/maps by its address range; run
// natively there is none, and the lines about it start with "~".
// expect-buffered: 150
#include "scenario.h"

#include <fcntl.h>
#include <sys/mman.h>

// preload/preload_interface.h: BS_BUFFER_REGION_START, BS_BUFFER_REGION_END.
#define REGION_START 0x70100000ul
#define REGION_END 0x80000000ul

static __attribute__((noinline)) ssize_t site_write(int fd, const void* b, size_t n) { return write(fd, b, n); }

static int writes(int fd, int count) {
  int done = 0;
  for (int i = 0; i < count; i++) done += site_write(fd, "0123456789abcdef", 16) == 16;
  return done;
}

int main(void) {
  int null = SYS(open("/dev/null", O_WRONLY | O_CLOEXEC));
  printf("before: %d writes\n", writes(null, 200));
  // The buffer regions in the maps, read before any of them changes.
  FILE* maps = fopen("/proc/self/maps", "r");
  CHECK(maps != NULL);
  unsigned long starts[16], ends[16];
  int found = 0;
  char line[512];
  while (found < 16 && fgets(line, sizeof line, maps)) {
    unsigned long start, end;
    if (sscanf(line, "%lx-%lx", &start, &end) == 2 && start >= REGION_START && end <= REGION_END) {
      starts[found] = start;
      ends[found] = end;
      found++;
    }
  }
  fclose(maps);
  printf("~buffer regions: %d\n", found);
  for (int i = 0; i < found; i++) {
    size_t len = ends[i] - starts[i];
    const unsigned char* p = (const unsigned char*)starts[i];
    size_t nonzero = 0;
    for (size_t k = 0; k < len; k++) nonzero += p[k] != 0;
    printf("~region %d: %zu bytes, %s before\n", i, len, nonzero ? "in use" : "all zero");
    SYS(madvise((void*)starts[i], len, MADV_DONTNEED));
    nonzero = 0;
    for (size_t k = 0; k < len; k++) nonzero += p[k] != 0;
    printf("~region %d: %zu nonzero bytes after MADV_DONTNEED\n", i, nonzero);
  }
  // Traced now, in the recording as in replay.
  printf("after: %d writes\n", writes(null, 200));
  SYS(close(null));
  return 0;
}
