// scenario: syscall buffering up to the end of a thread or process: a thread
// makes buffered calls and ends with pthread_exit; a child makes buffered
// calls and ends with _exit(3); another makes buffered calls and dies of
// SIGSEGV. The records left in their buffers must be in the trace (the
// results they computed are printed by the parent), and the parent buffers
// on after each end.
// input-random: blob.bin 16384
// requires: threads
// expect-buffered: 2000
#include "proc_util.h"
#include "thread_util.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>

static int blob_fd, result_pipe[2];

// Buffered reads of blob.bin and writes to /dev/null; the last call before
// the end is a buffered one.
static uint64_t work(int rounds, int salt) {
  int null = SYS(open("/dev/null", O_WRONLY | O_CLOEXEC));
  unsigned char b[100];
  uint64_t h = FNV_INIT;
  for (int i = 0; i < rounds; i++) {
    off_t off = (off_t)(((i + salt) * 331) % (16384 - 100));
    CHECK(SYS(pread(blob_fd, b, sizeof b, off)) == (ssize_t)sizeof b);
    h = fnv1a(b, sizeof b, h);
    CHECK(SYS(write(null, b, 10)) == 10);
  }
  SYS(close(null));
  return h;
}

static uint64_t thread_hash;

static void* thread_main(void* arg) {
  (void)arg;
  thread_hash = work(300, 11);
  long tid = syscall(SYS_gettid);
  CHECK(tid > 0);
  pthread_exit(NULL);
}

// A child's result goes to the parent through a pipe before it ends.
static void child_report(uint64_t h) {
  write_full(result_pipe[1], &h, sizeof h);
}

static uint64_t parent_read_report(void) {
  uint64_t h = 0;
  CHECK(read_full(result_pipe[0], &h, sizeof h) == sizeof h);
  return h;
}

int main(void) {
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  blob_fd = SYS(open("blob.bin", O_RDONLY | O_CLOEXEC));
  SYS(pipe(result_pipe));
  printf("main: %016llx\n", (unsigned long long)work(200, 0));

  pthread_t t;
  PCHECK(pthread_create(&t, NULL, thread_main, NULL));
  PCHECK(pthread_join(t, NULL));
  printf("thread (pthread_exit): %016llx\n", (unsigned long long)thread_hash);
  printf("main after the thread: %016llx\n", (unsigned long long)work(100, 1));

  pid_t pid = proc_fork();
  if (pid == 0) {
    uint64_t h = work(300, 22);
    child_report(h);
    work(50, 23);  // buffered calls right before the exit
    _exit(3);
  }
  printf("child (_exit): %016llx, %s\n", (unsigned long long)parent_read_report(),
         status_text(wait_for(pid)));
  printf("main after the child: %016llx\n", (unsigned long long)work(100, 2));

  pid = proc_fork();
  if (pid == 0) {
    uint64_t h = work(300, 33);
    child_report(h);
    work(50, 34);
    *(volatile int*)(uintptr_t)8 = 1;  // SIGSEGV
    _exit(0);
  }
  printf("child (crash): %016llx, %s\n", (unsigned long long)parent_read_report(),
         status_text(wait_for(pid)));
  printf("main at the end: %016llx\n", (unsigned long long)work(100, 3));
  return 0;
}
