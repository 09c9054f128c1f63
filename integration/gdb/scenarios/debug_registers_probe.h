// For a gdb scenario whose header says `// requires: debug-registers`: run
// with SCENARIO_PROBE=1 (run_scenario.py's machine_lacks()), the program
// only checks that a hardware breakpoint fires here (some hypervisors accept
// one and never trigger it) and exits 0, or 77 with the reason. Included at
// the end of the scenario, so that the lines of its expected output stay.
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) static void debug_registers_probe_target(void) { __asm__ volatile("" ::: "memory"); }

__attribute__((constructor)) static void debug_registers_probe(void) {
  if (!getenv("SCENARIO_PROBE")) return;
  struct perf_event_attr a;
  memset(&a, 0, sizeof a);
  a.type = PERF_TYPE_BREAKPOINT;
  a.size = sizeof a;
  a.bp_type = HW_BREAKPOINT_X;
  a.bp_addr = (uintptr_t)debug_registers_probe_target;
  a.bp_len = sizeof(long);
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
  if (fd < 0) exit(0);  // refused: backstep says so and goes on without them
  for (int i = 0; i < 3; i++) debug_registers_probe_target();
  uint64_t n = 0;
  if (read(fd, &n, sizeof n) != sizeof n || n != 3) {
    fprintf(stderr, "this machine has no debug registers that fire (a hardware breakpoint counted %lu of 3 hits)\n",
            (unsigned long)n);
    exit(77);
  }
  exit(0);
}
