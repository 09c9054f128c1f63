// scenario: many processes writing to the program's stdout and stderr
// (one pipe): 6 children take turns through a ring of pipes, so their
// lines interleave in a fixed order, then 6 more write a burst each, one
// after the other, between the parent's own lines. (Children writing at the
// same time are a known limit: ../known_limits/proc_interleaved_free.c.)
// output: merged
#include "proc_util.h"


#define KIDS 6

int main(void) {
  int ring[KIDS][2];
  for (int i = 0; i < KIDS; i++) SYS(pipe(ring[i]));
  pid_t pids[KIDS];
  for (int i = 0; i < KIDS; i++) {
    pids[i] = proc_fork();
    if (pids[i] == 0) {
      for (int round = 0; round < 10; round++) {
        char t;
        if (read_full(ring[i][0], &t, 1) != 1) _exit(3);
        child_say("ring: round %d, child %d\n", round, i);
        if (i % 2) {
          char err[64];
          int n = snprintf(err, sizeof err, "ring: child %d on stderr\n", i);
          write_full(2, err, (size_t)n);
        }
        write_full(ring[(i + 1) % KIDS][1], "t", 1);
      }
      _exit(0);
    }
  }
  write_full(ring[0][1], "t", 1);
  for (int i = 0; i < KIDS; i++) printf("ring child %d: %s\n", i, status_text(wait_for(pids[i])));
  fflush(stdout);

  // Then every child writes one burst of lines in turn, in pid order.
  for (int i = 0; i < KIDS; i++) {
    pids[i] = proc_fork();
    if (pids[i] == 0) {
      for (int k = 0; k < 20; k++) child_say("burst: child %d line %d\n", i, k);
      _exit(i);
    }
    printf("burst child %d: %s\n", i, status_text(wait_for(pids[i])));
    fflush(stdout);
  }
  return 0;
}
