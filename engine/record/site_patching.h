// The recorder's side of the instructions no kernel makes trap for it: as
// each private code mapping of a file is made, the sites it holds are
// patched into trapping instructions before the program runs any of it,
// and the patched bytes go into the event that mapped it (the Exec event,
// an mmap), so that replay writes the same code. The sites:
//   - rdtsc and rdtscp, where the kernel cannot make them trap
//     (engine/core/tsc_sites.h);
//   - RDRAND and RDSEED, always (engine/core/random_sites.h);
//   - cpuid, unless the recording uses CPUID faulting
//     (engine/core/cpuid_trap.h).
// Each file is decoded once per recording, and only around the places
// that could hold a site (engine/core/code_sites.h).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/code_sites.h"
#include "engine/core/random_sites.h"
#include "engine/core/tsc_sites.h"
#include "engine/trace/event.h"

namespace backstep {

class Task;

class SitePatcher {
 public:
  // `cpuid`: whether cpuid sites are patched (no CPUID faulting).
  explicit SitePatcher(bool cpuid = true);
  // Whether rdtsc sites are patched.
  bool enabled() const { return tsc_; }
  bool patches_cpuid() const { return cpuid_; }

  // A mapping [start, end) at file offset `offset` of the file readable at
  // `path`, whose content hashes to `hash`: patches the sites it holds in
  // `task` and appends what it wrote to `writes`. Nothing unless the mapping
  // is private and executable.
  void patch(Task& task, const std::string& path, uint64_t hash, const trace::Mapping& m,
             std::vector<trace::MemoryWrite>& writes);
  // The file offsets of the cpuid instructions in that file (whether or
  // not patch() patches them): the loader's cpuid stubs
  // (engine/record/loader_cpuid.cc).
  const std::vector<uint64_t>& cpuid_sites_of(const std::string& path, uint64_t hash);

 private:
  using FileSites = CodeSites;
  const FileSites& sites_of(const std::string& path, uint64_t hash);

  bool tsc_;
  bool cpuid_;
  std::map<uint64_t, FileSites> sites_;  // by content hash
};

}  // namespace backstep
