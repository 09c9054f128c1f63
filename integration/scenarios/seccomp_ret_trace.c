// scenario: a program whose own seccomp filter answers some calls with
// SECCOMP_RET_TRACE while nobody traces it for that (no tracer with
// PTRACE_O_TRACESECCOMP): the kernel skips each such call and fails it
// with ENOSYS. Under backstep the recorder is the program's real tracer,
// and must still give the kernel's answer without one. Calls traced so:
// getppid (the filter's data 7), an mmap of 3 pages (data 0, as backstep's
// own filter's default would be) and, on another thread, gettid. Allowed
// calls around them work as usual.
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static void* other_thread(void* arg) {
  (void)arg;
  errno = 0;
  long r = syscall(SYS_gettid);
  printf("thread: gettid %ld, %s\n", r, strerror(errno));
  return NULL;
}

int main(void) {
  struct sock_filter code[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 7),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettid, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE | 8),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, 3),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[1])),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3 * 4096, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog prog = {sizeof(code) / sizeof(code[0]), code};
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
    perror("seccomp");
    return 1;
  }
  errno = 0;
  long r = syscall(SYS_getppid);
  printf("getppid: %ld, %s\n", r, strerror(errno));
  errno = 0;
  void* p = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  printf("mmap of 3 pages: failed %d, %s\n", p == MAP_FAILED, strerror(errno));
  char* q = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (q != MAP_FAILED) q[4096] = 'x';
  printf("mmap of 4 pages: mapped %d, wrote %c\n", q != MAP_FAILED, q != MAP_FAILED ? q[4096] : '-');
  pthread_t t;
  pthread_create(&t, NULL, other_thread, NULL);
  pthread_join(t, NULL);
  printf("getpid allowed: %d\n", getpid() > 0);
  return 0;
}
