// scenario: a thread started with the clone3 system call directly (not
// through glibc): CLONE_VM|CLONE_THREAD|... with its own stack, a parent-tid
// and child-clear-tid word; the child makes raw system calls only, main waits
// on the word with futex.
// requires: threads
#include "thread_util.h"

#include <linux/futex.h>
#include <linux/sched.h>
#include <sys/mman.h>

#define STACK (64 * 1024)

// long clone3_run(struct clone_args* args, size_t size, int (*fn)(void*), void* arg)
// In the child (rax 0, on the new stack): exit(fn(arg)). r12/r13 carry fn and
// arg across the call; the parent restores them.
__asm__(
    ".text\n"
    ".globl clone3_run\n"
    ".type clone3_run,@function\n"
    "clone3_run:\n"
    "  push %r12\n"
    "  push %r13\n"
    "  mov %rdx, %r12\n"
    "  mov %rcx, %r13\n"
    "  mov $435, %eax\n"  // SYS_clone3
    "  syscall\n"
    "  test %rax, %rax\n"
    "  jz 1f\n"
    "  pop %r13\n"
    "  pop %r12\n"
    "  ret\n"
    "1:\n"
    "  xor %ebp, %ebp\n"
    "  mov %r13, %rdi\n"
    "  call *%r12\n"
    "  mov %eax, %edi\n"
    "  mov $60, %eax\n"  // SYS_exit: this thread only
    "  syscall\n"
    "  hlt\n");
long clone3_run(struct clone_args* args, size_t size, int (*fn)(void*), void* arg);

static volatile pid_t word;
static volatile long child_sum;

static int child(void* arg) {
  long n = (long)(intptr_t)arg, s = 0;
  for (long k = 1; k <= n; k++) s += k * k;
  child_sum = s;
  static const char msg[] = "clone3 child: raw write\n";
  return syscall(SYS_write, 1, msg, sizeof msg - 1) == (long)(sizeof msg - 1) ? 0 : 1;
}

int main(void) {
  printf("main: clone3 with CLONE_THREAD\n");
  fflush(stdout);
  char* stack = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(stack != MAP_FAILED);
  struct clone_args args;
  memset(&args, 0, sizeof args);
  args.flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM |
               CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID;
  args.parent_tid = (uint64_t)(uintptr_t)&word;
  args.child_tid = (uint64_t)(uintptr_t)&word;
  args.stack = (uint64_t)(uintptr_t)stack;
  args.stack_size = STACK;
  long tid = clone3_run(&args, sizeof args, child, (void*)(intptr_t)1000);
  CHECK(tid > 0);
  pid_t v;
  while ((v = word) != 0) {
    long r = syscall(SYS_futex, &word, FUTEX_WAIT, v, NULL, NULL, 0);
    CHECK(r == 0 || errno == EAGAIN || errno == EINTR);
  }
  SYS(munmap(stack, STACK));
  printf("child ran with a tid of its own: %s, sum of squares %ld\n", tid != getpid() ? "yes" : "no",
         child_sum);
  CHECK(child_sum == 1000L * 1001 * 2001 / 6);
  return 0;
}
