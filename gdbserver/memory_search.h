// qSearch:memory (gdb's `find`): a byte pattern searched in the debugged
// process's memory, over the parts of a range that are mapped, as gdbserver
// and rr answer it. gdb reading the range itself stops at the first page it
// cannot read ("Unable to access ... halting search"); the server skips the
// holes instead, and reads every mapping, PROT_NONE ones included (as the
// debugger's own reads do). A match may straddle two adjacent mappings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/timeline/debug_target.h"

namespace backstep::gdb {

// Reads up to `len` bytes at `addr`: fewer where memory stops being readable.
using MemoryReader = std::function<std::vector<uint8_t>(uint64_t addr, std::size_t len)>;

// The lowest address in [addr, addr + length) where `pattern` (not empty)
// starts and ends inside the range, reading only the mappings in `maps`
// (in address order) through `read`, at most `chunk` bytes a read.
std::optional<uint64_t> search_memory(const std::vector<MemoryMapping>& maps, const MemoryReader& read, uint64_t addr,
                                      uint64_t length, const std::vector<uint8_t>& pattern,
                                      std::size_t chunk = std::size_t{1} << 20);

}  // namespace backstep::gdb
