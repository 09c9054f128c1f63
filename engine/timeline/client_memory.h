// Memory a debugger allocates in the program (lldb's `_M`, freed with
// `_m`). lldb allocates once, for the code and data of its expressions,
// and uses the same addresses for the rest of the session: after resumes,
// at other positions, forwards and backwards. A replay cannot map anything
// the recording did not, so this memory lives here, outside every process:
// reads and writes at any position go to these bytes, and each diversion
// (diversion.h) maps the regions at their addresses with their contents
// when it starts and gives the bytes back when it ends (what a called
// function left there, an expression's result, stays). The replay itself
// never sees them.
//
// Addresses are picked below backstep's tool page (tool_page.h), where no
// mapping of the replay lies at the position of the allocation: programs
// map top-down from far above, and their heaps start far below.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "engine/timeline/debug_target.h"

namespace backstep {

class ClientMemory {
 public:
  struct Region {
    uint64_t size = 0;  // a multiple of the page size
    int prot = 0;       // PROT_* bits
    std::vector<uint8_t> bytes;
  };

  // A fresh zeroed region of at least `size` bytes, at an address free of
  // `taken` (the replay's mappings now) and of the other regions; nullopt
  // for size 0 or when nothing fits.
  std::optional<uint64_t> allocate(uint64_t size, int prot, const std::vector<MemoryMapping>& taken);
  // False for an address that does not start a region.
  bool deallocate(uint64_t addr);

  // The region holding `addr`, if any (its start in `start`).
  const Region* find(uint64_t addr, uint64_t* start = nullptr) const;
  // Up to `len` bytes from `addr`, within its region (empty outside one).
  std::vector<uint8_t> read(uint64_t addr, std::size_t len) const;
  // Bytes written, within the region holding `addr` (0 outside one).
  std::size_t write(uint64_t addr, const std::vector<uint8_t>& bytes);

  const std::map<uint64_t, Region>& regions() const { return regions_; }
  bool empty() const { return regions_.empty(); }
  // The regions as anonymous mappings, for qMemoryRegionInfo, merged into
  // `maps` in address order.
  void add_to(std::vector<MemoryMapping>& maps) const;

 private:
  std::map<uint64_t, Region> regions_;  // by start address
};

}  // namespace backstep
