// The recorder's side of engine/core/tsc_sites.h: where rdtsc cannot be
// made to trap, each new private code mapping of a file gets its rdtsc and
// rdtscp sites patched into trapping instructions before the program runs
// any of it, and the patched bytes go into the event that mapped it (the
// Exec event, an mmap), so that replay writes the same code.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/core/random_sites.h"
#include "engine/core/tsc_sites.h"
#include "engine/trace/event.h"

namespace backstep {

class Task;

class TscPatcher {
 public:
  TscPatcher();
  bool enabled() const { return enabled_; }

  // A mapping [start, end) at file offset `offset` of the file readable at
  // `path`, whose content hashes to `hash`: patches the sites it holds in
  // `task` and appends what it wrote to `writes`. Nothing unless the mapping
  // is private and executable; rdtsc sites only where enabled, RDRAND and
  // RDSEED sites always (random_sites.h).
  void patch(Task& task, const std::string& path, uint64_t hash, const trace::Mapping& m,
             std::vector<trace::MemoryWrite>& writes);

 private:
  struct FileSites {
    std::vector<TscSite> tsc;
    std::vector<RandomSite> random;
  };
  const FileSites& sites_of(const std::string& path, uint64_t hash);

  bool enabled_;
  std::map<uint64_t, FileSites> sites_;  // by content hash: each file is decoded once
};

}  // namespace backstep
