// scenario: a program that moves itself to each CPU it may run on in turn
// and asks cpuid there for the initial APIC id (leaf 1, ebx bits 31-24),
// then makes one getppid call per different id it saw. The ids differ from
// CPU to CPU (and, under some hypervisors, from minute to minute on one
// CPU): replay, which runs the program on one CPU, must give it the
// recorded answers. Without CPUID faulting the recorder patches each cpuid
// into a trap as the code is mapped (cpuid_trap.h), so replay makes as many
// getppid calls and prints the same ids; unpatched, it saw one id and
// diverged at the first missing call.
#include "scenario.h"

#include <cpuid.h>
#include <sched.h>

static unsigned apic_id(void) {
  unsigned a, b, c, d;
  CHECK(__get_cpuid(1, &a, &b, &c, &d));
  return b >> 24;
}

int main(void) {
  cpu_set_t allowed;
  SYS(sched_getaffinity(0, sizeof(allowed), &allowed));
  unsigned ids[CPU_SETSIZE];
  int seen = 0, distinct = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && seen < 16; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    SYS(sched_setaffinity(0, sizeof(one), &one));
    unsigned id = apic_id();
    int known = 0;
    for (int i = 0; i < seen; ++i) known |= ids[i] == id;
    distinct += !known;
    ids[seen++] = id;
    printf("~cpu %d: APIC id %u\n", cpu, id);
  }
  printf("asked %s CPU\n", seen > 1 ? "more than one" : "one");
  printf("~%d different ids\n", distinct);
  for (int i = 0; i < distinct; ++i) SYS(getppid());
  SYS(sched_setaffinity(0, sizeof(allowed), &allowed));
  return 0;
}
