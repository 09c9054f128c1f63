// rdtsc where the kernel cannot make it trap. backstep records the
// time-stamp counter by making rdtsc and rdtscp fault
// (PR_SET_TSC(PR_TSC_SIGSEGV)), but some hypervisors let the guest set that
// mode and then run rdtsc anyway: every dynamically linked program's loader
// reads the counter, and its replay would diverge at once. There, the
// recorder patches each rdtsc and rdtscp of the program's code, as it is
// mapped, into an instruction that always faults the same way (`int 0x2e`,
// a general-protection fault: SIGSEGV with SI_KERNEL at its address), and
// records the patch as memory it wrote, so that replay has the same code.
// The sites are found by decoding each code section of the mapped file
// (SHF_EXECINSTR) from its start; code made at run time (a JIT) is not
// patched, and its rdtsc is a divergence, reported as any other.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace backstep {

// Whether rdtsc faults here after PR_SET_TSC(PR_TSC_SIGSEGV) (a child
// process tries it, once per backstep process).
bool kernel_traps_rdtsc();

// Whether the recorder patches rdtsc sites: where the kernel does not trap
// rdtsc, or when BACKSTEP_PATCH_RDTSC=1 (to test the patching anywhere:
// the recording is then made as where the kernel cannot trap, without the
// kernel's trap).
bool patching_rdtsc_sites();

struct TscSite {
  uint64_t offset = 0;  // in the file
  uint8_t length = 0;   // 2: rdtsc, 3: rdtscp
};

// The rdtsc and rdtscp instructions in the code sections of the ELF file
// open at `fd` (none for a file that is not ELF or has no section headers).
std::vector<TscSite> find_tsc_sites(int fd);
// Calls `visit(bytes, size, file offset)` for each code section
// (SHF_EXECINSTR) of the ELF file open at `fd`.
void each_code_section(int fd, const std::function<void(const uint8_t*, std::size_t, uint64_t)>& visit);
// The same, with each section's address too (its sh_addr).
void each_code_section_at(int fd,
                          const std::function<void(const uint8_t*, std::size_t, uint64_t, uint64_t)>& visit);

// What a site of `length` bytes becomes: `int 0x2e` (rdtsc) or `int 0x2f;
// nop` (rdtscp).
std::vector<uint8_t> tsc_site_patch(uint8_t length);

// The length of the time-stamp read at `code` (`n` bytes readable) that a
// SIGSEGV with SI_KERNEL stopped at: 2 for rdtsc, 3 for rdtscp, native or
// (with `patched`) as tsc_site_patch wrote it; 0 for anything else.
int trapped_tsc_length(const uint8_t* code, std::size_t n, bool patched);

}  // namespace backstep
