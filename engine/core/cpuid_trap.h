// CPUID faulting (arch_prctl(ARCH_SET_CPUID, 0)): the program's cpuid
// instructions trap (SIGSEGV, SI_KERNEL), so that the recorder answers them
// and the trace holds the answers, as for rdtsc. The answers hide the
// instructions whose results replay could not reproduce: RDRAND and RDSEED
// (random numbers from the CPU, with no system call to record; libstdc++'s
// std::random_device prefers them) and the transactional memory of TSX
// (transactions abort at the hardware's whim). Programs that check cpuid
// first, as they must, fall back to getrandom or /dev/urandom and to locks.
#pragma once

#include <signal.h>

#include <vector>

#include <cstdint>

#include "values/registers.h"

namespace backstep {

class Task;

// Turns CPUID faulting on for `task` (stopped, with the tool page mapped).
// Returns false where the CPU or kernel cannot fault cpuid.
bool enable_cpuid_faulting(Task& task, std::vector<siginfo_t>* held = nullptr);

// Whether the instruction at `ip` is cpuid (0f a2).
bool is_cpuid_at(Task& task, uint64_t ip);

// The registers after the cpuid at `before.ip()`, as this CPU answers the
// leaf and subleaf in eax and ecx, with the features above hidden; run on
// the CPUs `task` may run on, so that per-CPU fields (APIC ids) are the
// program's own.
Registers emulate_cpuid(Task& task, const Registers& before);

// Hides the features above in one leaf's answer (exposed for tests).
void mask_cpuid_leaf(uint32_t leaf, uint32_t subleaf, uint32_t& eax, uint32_t& ebx, uint32_t& ecx, uint32_t& edx);

}  // namespace backstep
