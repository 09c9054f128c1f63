// What the recorder changes about the program's process that the program
// can ask about, and what it would have found without the recorder:
//   - its persona: ADDR_NO_RANDOMIZE added, so that addresses repeat in
//     replay (identity_syscalls.cc, personality);
//   - its CPU affinity: pinned to the recorder's CPU, since a ptrace stop
//     that crosses CPUs costs several times more (identity_syscalls.cc,
//     sched_getaffinity);
//   - CPUID faulting, on so that the recorder answers cpuid (core/
//     cpuid_trap.h); the program may ask for it too (arch_prctl
//     ARCH_SET_CPUID): then its cpuid instructions raise SIGSEGV for it
//     (process_syscalls.cc, record_signals.cc).
// Until the program sets one of them itself, the calls that report it
// answer what the program inherited.
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <set>

namespace backstep {

struct RecorderDisguise {
  // The affinity the recorder was started with (the program's, natively).
  cpu_set_t inherited_affinity{};
  bool have_inherited_affinity = false;
  // Threads whose mask is the program's own: set by sched_setaffinity, or
  // inherited from a thread that had one (thread_syscalls.cc, clone).
  std::set<pid_t> own_affinity;
  bool program_set_personality = false;
  // The recorder made cpuid fault; the program asked for that itself.
  bool cpuid_faulting = false;
  bool program_cpuid_faulting = false;
};

}  // namespace backstep
