// scenario: remap_file_pages on a shared file mapping (pages shown in
// another order), a store through the remapped page reaching the file at
// its new offset, a pwrite to the file showing at the remapped page, the
// EINVAL a private mapping gets; and iopl/ioperm taking port I/O away (or
// failing where the kernel offers none).
#include "scenario.h"

#include <fcntl.h>
#include <sys/io.h>
#include <sys/mman.h>

static void show(const char* what, const char* m) { printf("%s: %c%c%c\n", what, m[0], m[4096], m[8192]); }

int main(void) {
  char path[] = "/tmp/backstep_remapXXXXXX";
  int fd = SYS(mkstemp(path));
  char pages[3 * 4096];
  for (int i = 0; i < 3; i++) memset(pages + i * 4096, 'A' + i, 4096);
  SYS(write(fd, pages, sizeof pages));
  char* m = mmap(NULL, sizeof pages, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  CHECK(m != MAP_FAILED);
  show("linear", m);
  SYS(remap_file_pages(m, 4096, 0, 2, 0));
  show("first page shows page 2", m);
  m[1] = 'z';
  char c = 0;
  SYS(pread(fd, &c, 1, 8193));
  printf("store reached file offset 8193: %c\n", c);
  SYS(pwrite(fd, "Q", 1, 8194));
  printf("pwrite at 8194 seen through both: %c %c\n", m[2], m[8194]);
  char* priv = mmap(NULL, sizeof pages, PROT_READ, MAP_PRIVATE, fd, 0);
  CHECK(priv != MAP_FAILED);
  errno = 0;
  int r = remap_file_pages(priv, 4096, 0, 1, 0);
  printf("private mapping: %d %s\n", r, errname(errno));
  errno = 0;
  r = iopl(0);
  printf("iopl(0): %d %s\n", r, r ? errname(errno) : "");
  errno = 0;
  r = ioperm(0x80, 1, 0);
  printf("ioperm off: %d %s\n", r, r ? errname(errno) : "");
  unlink(path);
  return 0;
}
