// scenario: reverse-continue across 1,000,000 hits of a breakpoint in a loop without system calls, at most 3 checkpoints
// requires: debug-registers
// timeout: 600
#include <stdio.h>

static volatile long total;

__attribute__((noinline)) static void tick(long i) {
  total += i;
}

int main(void) {
  total = 7;
  for (long i = 0; i < 1000000; i++) tick(i);
  printf("total=%ld\n", total);
  return 0;
}

// Kept below main so that the lines above stay those of the expected output.
// Counting 10^6 hits in the kernel needs debug registers that fire (some
// hypervisors accept a hardware breakpoint and never trigger it); without,
// each hit is a ptrace stop and the run takes longer than the test's limit.
// run_scenario.py's machine_lacks() runs the program with SCENARIO_PROBE=1.
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((constructor)) static void probe_machine(void) {
  if (!getenv("SCENARIO_PROBE")) return;
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.type = PERF_TYPE_BREAKPOINT;
  a.size = sizeof a;
  a.bp_type = HW_BREAKPOINT_X;
  a.bp_addr = (uintptr_t)tick;
  a.bp_len = sizeof(long);
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd < 0) exit(0);  // refused: backstep stops at every hit, and says so
  for (int i = 0; i < 3; i++) tick(0);
  uint64_t n = 0;
  if (read(fd, &n, sizeof n) != sizeof n || n != 3) {
    fprintf(stderr, "this machine has no debug registers that fire (a hardware breakpoint counted %lu of 3 hits)\n",
            (unsigned long)n);
    exit(77);
  }
  exit(0);
}
