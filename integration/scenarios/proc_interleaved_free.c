// scenario: 6 children write 40 lines each to the program's stdout (one
// pipe) at the same time, with no order between them (the lines vary, so
// they start with "~"); the parent counts what each wrote through a shared
// tally and prints it.
//
// A write to a pipe may block, so the recorder could let other processes
// run while one is in it, and two children would then be inside write(1)
// at once, their lines ordered in the trace by when the recorder collected
// the calls' ends rather than by the kernel. A write to backstep's own
// stdout or stderr is run to its end first (unless it really blocks), so
// replay prints the lines in the recorded order.
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
