// The state of a stopped program, reduced to one number: every non-zero page
// of its writable memory (with its address) and its SSE registers. Record and
// replay compute it the same way, so that a position chosen by the recorder
// in the middle of user code (trace::ForcedPosition) can be recognised in
// replay by registers plus this digest.
//
// Left out: backstep's tool pages and syscall buffers, [vvar] and [vsyscall]
// (not the program's state), and pages that read as all zero (so that an untouched page and a
// page that was never mapped in the same place count alike: replay builds
// the address space from the trace, and need not fault in the same pages).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace backstep {

class Task;

struct StateDigest {
  uint64_t memory = 0;     // writable memory
  uint64_t vector = 0;     // MXCSR and XMM0-15 from the XSAVE area
  std::size_t bytes = 0;   // bytes of memory read (for logs and the bench)
  uint64_t combined() const;
  bool operator==(const StateDigest&) const = default;
};

// `hidden`: bytes the engine wrote into memory (breakpoints), by address,
// with the program's original values, which the digest uses instead.
StateDigest state_digest(Task& task, const std::vector<uint8_t>& xstate,
                         const std::map<uint64_t, uint8_t>& hidden = {});

// The program's writable memory as the digest sees it: every page that is
// not all zero, adjacent pages merged into one range. A Position event that
// is not a fixpoint carries it, so that replay can put the program into
// that state directly when finding the moment would take too long
// (engine/replay/replay_position.cc).
struct MemoryImage {
  struct Range {
    uint64_t start = 0;
    std::vector<uint8_t> bytes;
  };
  std::vector<Range> ranges;
  std::size_t bytes() const;
};
MemoryImage writable_image(Task& task, const std::map<uint64_t, uint8_t>& hidden = {});

}  // namespace backstep
