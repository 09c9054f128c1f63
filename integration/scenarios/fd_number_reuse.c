// scenario: a descriptor number written through, then closed or replaced
// and reused for another file, is written through again: the recorder must
// see the new file each time (it remembers what each descriptor is). Reused
// by close + dup, dup2 and dup3 over a used number, close_range + dup, and
// close + open of a file mapped MAP_SHARED, whose mapping a pwrite changes.
// input: first.txt = first file, never mapped\n
// input: second.txt = second file, mapped shared\n
#define _GNU_SOURCE
#include "scenario.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <sys/mman.h>
#include <sys/syscall.h>

static void say(int fd, const char* s) { CHECK(write(fd, s, strlen(s)) == (ssize_t)strlen(s)); }

int main(void) {
  // close, then dup of stdout takes the same number.
  int n = SYS(open("/dev/null", O_WRONLY));
  say(n, "to /dev/null\n");
  SYS(close(n));
  CHECK(SYS(dup(1)) == n);
  say(n, "stdout through a number reused by close + dup\n");

  // dup2 and dup3 onto a number that is in use.
  int m = SYS(open("/dev/null", O_WRONLY));
  say(m, "to /dev/null\n");
  SYS(dup2(2, m));
  say(m, "stderr through dup2 over a used descriptor\n");
  SYS(dup3(1, m, O_CLOEXEC));
  say(m, "stdout through dup3 over a used descriptor\n");
  int k = SYS(open("/dev/null", O_WRONLY));
  say(k, "to /dev/null\n");
  SYS(dup2(k, m));
  say(m, "to /dev/null again, not echoed\n");

  // close_range, then the number is reused.
  SYS(syscall(SYS_close_range, k, k, 0));
  CHECK(SYS(dup(2)) == k);
  say(k, "stderr through a number reused by close_range + dup\n");

  // A regular file, then another file at the same number, mapped shared: a
  // write through the number changes the mapping.
  int f = SYS(open("first.txt", O_RDWR));
  say(f, "F");
  SYS(close(f));
  CHECK(SYS(open("second.txt", O_RDWR)) == f);
  char* map = mmap(NULL, 4096, PROT_READ, MAP_SHARED, f, 0);
  CHECK(map != MAP_FAILED);
  CHECK(pwrite(f, "SECOND", 6, 0) == 6);
  printf("mapping shows: %.26s\n", map);
  say(f, "written through the mapped file's descriptor");
  printf("mapping shows: %.44s\n", map);
  SYS(munmap(map, 4096));
  return 0;
}
