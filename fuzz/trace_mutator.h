// Structure-aware mutation of trace_fuzz's and dump_fuzz's inputs (the
// layout at the top of trace_fuzz.cc). Random bytes rarely get past the
// zstd/zlib frame and the checksums; this mutator decodes the input's
// chunks and events, changes one value the way a forger would (a signal
// number of 200, a count of 0xffffffff, an unknown enum value, a field cut
// short, a path with ".."), and encodes everything again with consistent
// lengths, re-compressed chunks and valid checksums, so that the mutation
// reaches the event decoder and what consumes its events.
#pragma once

#include <cstddef>
#include <cstdint>

namespace backstep::fuzz {

// Mutates the input in place (at most `max_size` bytes); returns its new
// size. Half of the time, and whenever the input does not decode, it leaves
// the work to libFuzzer's own byte-level mutations (LLVMFuzzerMutate).
std::size_t mutate_trace_input(uint8_t* data, std::size_t size, std::size_t max_size, unsigned seed);

}  // namespace backstep::fuzz
