// The instructions the recorder patches in a file's code as it is mapped
// (engine/record/site_patching.h): rdtsc and rdtscp (tsc_sites.h), RDRAND
// and RDSEED (random_sites.h), cpuid (cpuid_trap.h), found in one walk.
//
// A site is an instruction, so the bytes must be found at an instruction
// boundary. Decoding a whole code section from its start finds every
// boundary, but costs about a microsecond an instruction: 25 MB of cc1 took
// a second to record a one-line compile, three walks of it. Instead, the
// walk decodes only up to each place whose bytes could start a site (0f 31,
// 0f 01 f9, 0f a2, 0f c7 /6 or /7), starting from the nearest function
// start before it, which the unwind table (.eh_frame_hdr's binary search
// table of FDE start addresses, present in stripped programs too) names as
// a boundary; from there the walk is the linear one. Where the table is
// missing or in an encoding not read here, the walk starts at the section's
// start, as before.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/core/random_sites.h"
#include "engine/core/tsc_sites.h"

namespace backstep {

struct CodeSites {
  std::vector<TscSite> tsc;
  std::vector<RandomSite> random;
  std::vector<uint64_t> cpuid;  // file offsets
};

// The sites of the ELF file open at `fd`, each by its file offset: RDRAND
// and RDSEED always, rdtsc/rdtscp where `tsc`, cpuid where `cpuid`.
CodeSites find_code_sites(int fd, bool tsc, bool cpuid);

// The same over one code section's `size` bytes at file offset
// `file_offset`, given the section-relative offsets of the function starts
// in it (sorted; empty: decode from the section's start).
void scan_code_sites(const uint8_t* code, std::size_t size, uint64_t file_offset,
                     const std::vector<uint64_t>& starts, bool tsc, bool cpuid, CodeSites& out);

}  // namespace backstep
