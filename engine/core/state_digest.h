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
#include <functional>
#include <map>
#include <vector>

struct XXH3_state_s;  // xxhash.h

namespace backstep {

class Task;

struct StateDigest {
  uint64_t memory = 0;     // writable memory
  uint64_t vector = 0;     // MXCSR and XMM0-15 from the XSAVE area
  std::size_t bytes = 0;   // bytes of memory read (for logs and the bench)
  uint64_t combined() const;
  bool operator==(const StateDigest&) const = default;
};

// The same digest from pages given in address order (replay computes it
// from a stored state it has just put into the program).
class StateDigestBuilder {
 public:
  StateDigestBuilder();
  ~StateDigestBuilder();
  StateDigestBuilder(const StateDigestBuilder&) = delete;
  StateDigestBuilder& operator=(const StateDigestBuilder&) = delete;
  // `len` bytes of memory at `at`, page-aligned; pages all zero count as absent.
  void add(uint64_t at, const uint8_t* data, std::size_t len);
  StateDigest finish(const std::vector<uint8_t>& xstate);

 private:
  ::XXH3_state_s* state_;
  std::size_t bytes_ = 0;
};

// `hidden`: bytes the engine wrote into memory (breakpoints), by address,
// with the program's original values, which the digest uses instead.
StateDigest state_digest(Task& task, const std::vector<uint8_t>& xstate,
                         const std::map<uint64_t, uint8_t>& hidden = {});

// Calls fn(address, page) for every page of the program's writable memory
// that the digest covers and is not all zero, in address order (4096
// bytes each).
void for_each_written_page(Task& task, const std::function<void(uint64_t, const uint8_t*)>& fn);

// [start, end), page-aligned.
struct PageSpan {
  uint64_t start = 0;
  uint64_t end = 0;
  bool operator==(const PageSpan&) const = default;
};

// A page that is not all zero, by the XXH3-64 hash of its 4096 bytes.
struct PageHash {
  uint64_t addr = 0;
  uint64_t hash = 0;
};

// The program's writable memory as a forced position stores it
// (engine/record/forced_position.cc): every page that is not all zero,
// compared with the pages of the state stored before (`base`, the hashes
// of its pages in address order; null for none), so that only what
// changed need be stored. A hash that collided would leave a changed page
// out; replay checks the digest of every state it takes, so that would be
// a divergence, never a silent one.
struct MemoryDelta {
  std::vector<PageSpan> ranges;  // every mapping the digest covers, adjacent ones merged
  struct Run {                   // pages in a row
    uint64_t start = 0;
    std::vector<uint8_t> bytes;
  };
  std::vector<Run> changed;       // pages new or changed since `base` (all of them without one)
  std::vector<PageSpan> zeroed;   // pages of `base` inside `ranges` that are all zero now
  std::vector<PageHash> hashes;   // every page now, the `base` of the next state
  std::size_t image_bytes = 0;    // the bytes of every page now
  std::size_t changed_bytes = 0;  // the bytes of `changed`
};
MemoryDelta memory_delta(Task& task, const std::vector<PageHash>* base);

}  // namespace backstep
