// scenario: fork and copy-on-write: the child runs 1000 iterations that
// rewrite a 1 MB heap buffer, a stack array and a global, and reports a
// checksum through its exit status and a pipe, while the parent waits in
// wait4; the parent's copies are unchanged afterwards. Then the parent's
// own later writes are invisible to a second child forked earlier.
#include "proc_util.h"

#include <sys/resource.h>

static long global_value = 7;

int main(void) {
  size_t size = 1 << 20;
  unsigned char* heap = malloc(size);
  CHECK(heap != NULL);
  for (size_t i = 0; i < size; i++) heap[i] = (unsigned char)i;
  uint64_t before = fnv1a(heap, size, FNV_INIT);
  int stack_array[256];
  for (int i = 0; i < 256; i++) stack_array[i] = i;
  int fds[2];
  SYS(pipe(fds));
  pid_t pid = proc_fork();
  if (pid == 0) {
    for (int it = 0; it < 1000; it++) {
      for (size_t i = (size_t)it; i < size; i += 4093) heap[i] ^= (unsigned char)it;
      stack_array[it % 256] += it;
      global_value += it;
    }
    uint64_t h = fnv1a(heap, size, FNV_INIT);
    h = fnv1a(stack_array, sizeof stack_array, h);
    write_full(fds[1], &h, sizeof h);
    write_full(fds[1], &global_value, sizeof global_value);
    _exit(0);
  }
  close(fds[1]);
  int status;
  struct rusage ru;
  CHECK(wait4(pid, &status, 0, &ru) == pid);
  uint64_t child_hash;
  long child_global;
  CHECK(read_full(fds[0], &child_hash, sizeof child_hash) == sizeof child_hash);
  CHECK(read_full(fds[0], &child_global, sizeof child_global) == sizeof child_global);
  printf("child: %s, hash %016llx, global %ld\n", status_text(status), (unsigned long long)child_hash, child_global);
  nd("child's user time %ld us\n", (long)ru.ru_utime.tv_usec);
  printf("parent unchanged: heap %d, stack %d, global %ld\n", fnv1a(heap, size, FNV_INIT) == before,
         stack_array[5] == 5, global_value);

  int go[2];
  SYS(pipe(go));
  pid = proc_fork();
  if (pid == 0) {
    char c;
    if (read(go[0], &c, 1) != 1) _exit(3);
    _exit(heap[12345] == (unsigned char)12345 && global_value == 7 ? 0 : 1);
  }
  heap[12345] = 0;
  global_value = 99;
  write_full(go[1], "g", 1);
  printf("second child sees its own copy: %s\n", status_text(wait_for(pid)));
  free(heap);
  return 0;
}
