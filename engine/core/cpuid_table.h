// cpuid answered inside the program, without a trap. Every cpuid the
// recorder answers (cpuid_trap.h) costs a stop, about 30 us here, and the
// dynamic loader asks some fifty at each exec (glibc's CPU features and
// cache sizes), before the preload library is there to help: 1.5 ms of
// every process's start, in record and replay alike. So the recorder keeps
// the answers it gave (CpuidAnswers), and at each exec patches the
// loader's cpuid sites into stubs (syscall_stub.h's layout) that call
// cpuid_routine(): it looks the leaf and subleaf up in a table of those
// answers, written with the stubs into the new process, and falls back to
// the stub's traced path, the trapping cpuid, for anything not in it. The
// table and stubs are memory the Exec event writes, so replay gives the
// same answers from the same bytes (engine/record/loader_cpuid.cc).
#pragma once

#include <sched.h>
#include <sys/types.h>

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

#include "values/registers.h"

namespace backstep {

class Task;

// Whether a leaf's answer depends on the subleaf in ecx. Leaves known to
// ignore it are looked up by leaf alone (glibc asks them with whatever ecx
// holds); every other leaf by both.
bool cpuid_subleaf_matters(uint32_t leaf);

// The table cpuid_routine() reads: entries of kCpuidEntrySize bytes, each
// leaf, subleaf, match (kCpuidMatch*), a pad, then eax, ebx, ecx, edx; the
// last entry's match is kCpuidMatchEnd.
inline constexpr std::size_t kCpuidEntrySize = 32;
inline constexpr uint32_t kCpuidMatchEnd = 0, kCpuidMatchLeaf = 1, kCpuidMatchSubleaf = 2;

// The answers the recorder gave, by the CPUs the thread could run on (the
// APIC ids differ between CPUs), leaf, subleaf and whether features were
// hidden.
class CpuidAnswers {
 public:
  // As emulate_cpuid(task, before, hide), from an earlier answer on the
  // same CPUs where there is one (no cpuid, which a hypervisor traps, and
  // no moves of the recorder between CPUs).
  Registers emulate(Task& task, const Registers& before, bool hide);
  // The answers given so far on the CPUs `pid` may run on, as a table.
  std::vector<uint8_t> table(pid_t pid, bool hide) const;
  std::size_t size() const { return answers_.size(); }

 private:
  struct CpuMask {
    cpu_set_t set;
    bool operator<(const CpuMask& o) const;
  };
  static bool mask_of(pid_t pid, CpuMask& out);
  using Key = std::tuple<CpuMask, uint32_t, uint32_t, bool>;  // CPUs, leaf, subleaf (0 if ignored), hide
  struct Answer {
    uint32_t eax, ebx, ecx, edx;
  };
  std::map<Key, Answer> answers_;
};

// The routine at `at` that a cpuid stub calls (its `call` pushes the
// handled path's address R), with its table at `table`. Entered with eax
// and ecx as at the cpuid; the red zone stepped over. Found: eax, ebx, ecx
// and edx as the table says (upper halves cleared, as cpuid does), every
// other register and rflags kept, back to R. Not found: every register and
// rflags as at entry, back to R + BS_STUB_TRACED_DELTA.
std::vector<uint8_t> cpuid_routine(uint64_t at, uint64_t table);

}  // namespace backstep
