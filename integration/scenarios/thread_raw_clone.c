// scenario: threads made with glibc's clone() wrapper rather than pthreads:
// CLONE_VM|CLONE_THREAD|... with CLONE_PARENT_SETTID and
// CLONE_CHILD_CLEARTID on one word, as pthreads does, but no CLONE_SETTLS (the
// child shares main's TLS, so it makes raw system calls only); main waits on
// the word with futex until the kernel clears it at the child's exit.
// requires: threads
#include "thread_util.h"

#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>

#define N 3
#define STACK (64 * 1024)

static volatile pid_t ctid[N];  // set before the child runs, cleared at its exit
static int tids[N];
static volatile long results[N];

static int child(void* arg) {
  int i = (int)(intptr_t)arg;
  long s = 0;
  for (long k = 0; k <= 1000L * (i + 1); k++) s += k;
  results[i] = s;
  char msg[] = "child N: raw write\n";
  msg[6] = (char)('0' + i);
  // Not printf: stdio would use main's TLS and locks.
  return syscall(SYS_write, 1, msg, sizeof msg - 1) == (long)(sizeof msg - 1) ? 0 : 1;
}

int main(void) {
  int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
              CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
  printf("main: starting %d raw clones one after the other\n", N);
  fflush(stdout);
  for (int i = 0; i < N; i++) {
    char* stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(stack != MAP_FAILED);
    int tid = clone(child, stack + STACK, flags, (void*)(intptr_t)i, &ctid[i], NULL, &ctid[i]);
    CHECK(tid > 0);
    tids[i] = tid;
    // The kernel wrote the tid there before the child ran (PARENT_SETTID);
    // it clears it and wakes the futex when the child exits (CHILD_CLEARTID).
    pid_t v;
    while ((v = ctid[i]) != 0) {
      long r = syscall(SYS_futex, &ctid[i], FUTEX_WAIT, v, NULL, NULL, 0);
      CHECK(r == 0 || errno == EAGAIN || errno == EINTR);
    }
    SYS(munmap(stack, STACK));
  }
  for (int i = 0; i < N; i++) printf("child %d: a tid of its own %s, sum %ld\n", i,
                                     tids[i] != getpid() ? "yes" : "no", results[i]);
  return 0;
}
