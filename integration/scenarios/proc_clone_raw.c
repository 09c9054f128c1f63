// scenario: processes made by raw clone system calls without CLONE_THREAD:
// clone(SIGCHLD) (a fork), clone with CLONE_VM|CLONE_VFORK on a stack of
// its own (the child shares memory until it exits), clone with
// CLONE_PARENT_SETTID|CLONE_CHILD_SETTID, clone3 with an exit signal of
// SIGCHLD, and clone with exit signal 0 (waited with __WCLONE).
#include "proc_util.h"

#include <linux/sched.h>
#include <sched.h>
#include <sys/syscall.h>

static long raw_clone(unsigned long flags, void* stack, pid_t* ptid, pid_t* ctid) {
  // Only with stack == NULL: the child goes on on a copy of this stack.
  return syscall(SYS_clone, flags, stack, ptid, ctid, 0);
}

static volatile int vm_note;
static char child_stack[65536] __attribute__((aligned(16)));

static int vm_child(void* arg) {
  vm_note = (int)(long)arg;
  return 0;  // glibc's clone() calls exit with this
}

int main(void) {
  fflush(stdout);
  long pid = raw_clone(SIGCHLD, NULL, NULL, NULL);
  CHECK(pid != -1);
  if (pid == 0) _exit(31);
  printf("clone(SIGCHLD): %s\n", status_text(wait_for((pid_t)pid)));

  pid_t ptid = 0, ctid = 0;
  fflush(stdout);
  pid = raw_clone(SIGCHLD | CLONE_PARENT_SETTID | CLONE_CHILD_SETTID, NULL, &ptid, &ctid);
  CHECK(pid != -1);
  if (pid == 0) _exit(ctid == getpid() ? 32 : 1);
  printf("settid: %s, parent's word matches %d, parent's ctid untouched %d\n", status_text(wait_for((pid_t)pid)),
         ptid == pid, ctid == 0);

  fflush(stdout);
  int vpid = clone(vm_child, child_stack + sizeof child_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, (void*)777);
  CHECK(vpid != -1);
  printf("CLONE_VM|CLONE_VFORK: %s, note %d\n", status_text(wait_for(vpid)), vm_note);

  struct clone_args args;
  memset(&args, 0, sizeof args);
  args.exit_signal = SIGCHLD;
  fflush(stdout);
  pid = syscall(SYS_clone3, &args, sizeof args);
  CHECK(pid != -1);
  if (pid == 0) _exit(33);
  printf("clone3: %s\n", status_text(wait_for((pid_t)pid)));

  fflush(stdout);
  pid = raw_clone(0, NULL, NULL, NULL);
  CHECK(pid != -1);
  if (pid == 0) _exit(34);
  int status;
  errno = 0;
  pid_t r = waitpid((pid_t)pid, &status, WNOHANG);
  printf("plain waitpid on a no-signal child: %d %s\n", r, errname(errno));
  CHECK(waitpid((pid_t)pid, &status, __WCLONE) == pid);
  printf("__WCLONE: %s\n", status_text(status));
  return 0;
}
