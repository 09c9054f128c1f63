// scenario: 6 children write 40 lines each to the program's stdout (one
// pipe) at the same time, with no order between them (the lines vary, so
// they start with "~"); the parent counts what each wrote through a shared
// tally and prints it.
//
// Known limit: replay re-emits the lines in another order than the
// recording wrote them. A write to a pipe may block, so the recorder lets
// other processes run while one is in it (blocking_calls.cc, may_block;
// the SyscallEntered event): two children can be inside write(1) at once,
// e.g. events 592-595 of one recording: 592 child A entered write, 593
// child B entered write, 594 A's Syscall event, 595 B's. The kernel had
// put B's line into the pipe first, but the trace's echo order (and so
// replay's output) is the order in which the recorder collected the calls'
// ends. Every byte is there, in another order. Pipe writes that fit in the
// pipe never block; the recorder could run those to their end before
// letting another task run, or take the order from the kernel (e.g. for
// the original stdout/stderr only).
// output: merged
#include "proc_util.h"

#include <sys/mman.h>

#define KIDS 6

int main(void) {
  pid_t pids[KIDS];
  long* tally = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  CHECK(tally != MAP_FAILED);
  for (int i = 0; i < KIDS; i++) {
    pids[i] = proc_fork();
    if (pids[i] == 0) {
      for (int k = 0; k < 40; k++) {
        child_say("~ free: child %d line %d\n", i, k);
        __atomic_add_fetch(&tally[i], 1, __ATOMIC_SEQ_CST);
      }
      _exit(0);
    }
  }
  for (int i = 0; i < KIDS; i++) CHECK(WIFEXITED(wait_for(pids[i])));
  for (int i = 0; i < KIDS; i++) printf("free child %d wrote %ld lines\n", i, tally[i]);
  return 0;
}
