// CPUID faulting (arch_prctl(ARCH_SET_CPUID, 0)): the program's cpuid
// instructions trap (SIGSEGV, SI_KERNEL), so that the recorder answers them
// and the trace holds the answers, as for rdtsc. The answers hide the
// instructions whose results replay could not reproduce: RDRAND and RDSEED
// (random numbers from the CPU, with no system call to record; libstdc++'s
// std::random_device prefers them) and the transactional memory of TSX
// (transactions abort at the hardware's whim). Programs that check cpuid
// first, as they must, fall back to getrandom or /dev/urandom and to locks.
//
// Without CPUID faulting (the default), cpuid would answer the program
// natively in record and replay alike, and not every answer repeats: some
// hypervisors report in leaf 1's ebx the APIC id of the host CPU that the
// virtual one runs on at that moment, which changes over minutes on the same
// virtual CPU. The loader keeps that word in its data, so a replay started a
// few minutes later had other memory and missed positions the recorder chose
// by a digest of it. So the recorder patches each cpuid of the program's
// code as the file is mapped, like rdtsc (tsc_sites.h), into `int 0x28` (a
// general-protection fault: SIGSEGV with SI_KERNEL at its address), and
// answers it with this CPU's answer, unchanged (nothing hidden: the program
// sees what it would natively), recorded like an rdtsc. Code made at run
// time (a JIT) is not patched.
#pragma once

#include <signal.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "values/registers.h"

namespace backstep {

class Task;

// Turns CPUID faulting on for `task` (stopped, with the tool page mapped).
// Returns false where the CPU or kernel cannot fault cpuid.
bool enable_cpuid_faulting(Task& task, std::vector<siginfo_t>* held = nullptr);

// Whether the instruction at `ip` is cpuid (0f a2), or (with `patched`)
// cpuid as find_cpuid_sites() and cpuid_site_patch() patched it.
bool is_cpuid_at(Task& task, uint64_t ip, bool patched = false);
bool is_cpuid(const uint8_t* code, std::size_t n, bool patched);

// The file offsets of the cpuid instructions in the code sections of the
// ELF file open at `fd`; in one code section `code` that starts at file
// offset `file_offset`, decoded from its start.
std::vector<uint64_t> find_cpuid_sites(int fd);
void scan_cpuid_sites(const uint8_t* code, std::size_t size, uint64_t file_offset, std::vector<uint64_t>& out);
// What a cpuid site becomes (2 bytes, as cpuid).
std::vector<uint8_t> cpuid_site_patch();

// The registers after the cpuid at `before.ip()`, as this CPU answers the
// leaf and subleaf in eax and ecx, with the features above hidden where
// `hide` (CPUID faulting); run on the CPUs `task` may run on, so that
// per-CPU fields (APIC ids) are the program's own.
Registers emulate_cpuid(Task& task, const Registers& before, bool hide = true);

// Hides the features above in one leaf's answer (exposed for tests).
void mask_cpuid_leaf(uint32_t leaf, uint32_t subleaf, uint32_t& eax, uint32_t& ebx, uint32_t& ecx, uint32_t& edx);

}  // namespace backstep
