// A cache of the recent trajectory: for a run of consecutive single-step
// positions inside one interval between events (the same anchors, `steps`
// = first .. last), the state a debugger asks for at each of them, read
// from the replay while it stood there. gdb's reverse-next sends one
// reverse step per instruction and, between two, reads only the registers
// of the stop and the stack line of its frame; with this cache the
// timeline answers those without moving the replay ("lazy position",
// timeline_lazy.cc), and brings the replay to the position only for what
// the cache cannot answer exactly.
//
// Exactness: every value here was read from a replay at that very
// position, so it is what a seek there would give. Memory outside the
// saved windows is answered from the replay (wherever it stands in the
// same interval) only in mappings that are not writable: no event lies
// between two positions of one interval, so no mapping changed, and the
// program's own instructions cannot write there without a fault (an
// event). Everything else is not served.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "values/registers.h"
#include "engine/timeline/mark.h"

namespace backstep {

// Bytes of the program's memory read at one position (a few aligned
// lines around the stack pointer and the frame pointer).
struct MemoryWindow {
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
  bool operator==(const MemoryWindow&) const = default;
};

struct TrajectoryEntry {
  // The thread whose instruction runs from here (the stop a reverse step
  // reports) and the one a register read without a thread means; only
  // `runs`'s registers are kept.
  pid_t runs = 0;
  pid_t stopped = 0;
  Registers regs;  // as ReplayTimeline::registers(runs) shows them
  // Shared between consecutive entries while unchanged.
  std::shared_ptr<const std::vector<uint8_t>> xstate;
  std::vector<std::shared_ptr<const MemoryWindow>> windows;
};

class Trajectory {
 public:
  // Up to this many positions are kept (a few hundred bytes each): more
  // than a 10,000-iteration loop of ten instructions.
  static constexpr std::size_t kMaxEntries = 1u << 17;

  // The entry for `m`, if cached.
  const TrajectoryEntry* find(const Mark& m) const;
  // Memory at `m` (which find() returned `entry` for) when a saved window
  // holds all of [addr, addr + len).
  static std::optional<std::vector<uint8_t>> window_bytes(const TrajectoryEntry& entry, uint64_t addr,
                                                          std::size_t len);
  // Whether [addr, addr + len) lies in mappings that were not writable in
  // the interval of the cached positions (so the replay anywhere in it
  // holds the same bytes).
  bool read_only(uint64_t addr, std::size_t len) const;

  // Filling: begin() with the first position (steps = `first` after
  // `base`'s anchors) and the interval's read-only mappings, then add()
  // one entry per position in order. end() merges the run into the cache:
  // it continues a cached run with the same base (adjacent), or is kept
  // beside the others of the same interval (a run of another interval
  // replaces them all). `complete`: the run ends right before the next hit
  // of its last anchor (complete_run_end()). Kept: the latest kMaxEntries
  // of a run added, when a run ends just before the cached one the
  // earliest of both, and at most kMaxEntries positions and kMaxRuns runs
  // in all (the least recently filled go first).
  static constexpr std::size_t kMaxRuns = 1024;
  void begin(const Mark& first, std::vector<std::pair<uint64_t, uint64_t>> read_only);
  void add(TrajectoryEntry entry);
  void end(bool complete = false);
  // For a run whose base is `base` (no steps) that ended complete: its
  // last position's steps.
  std::optional<uint64_t> complete_run_end(const Mark& base) const;
  bool filling() const { return filling_; }
  // The previous entry of the run being filled (for sharing unchanged
  // parts), or nullptr.
  const TrajectoryEntry* last_added() const { return pending_.empty() ? nullptr : &pending_.back(); }
  void clear();

  std::size_t size() const { return total_; }
  std::size_t runs() const { return runs_.size(); }
  // Positions answered from the cache so far (reverse steps landed
  // without moving the replay), and reads answered.
  uint64_t steps_served = 0;
  uint64_t reads_served = 0;

 private:
  // Positions `base` + (first + i) steps, i < entries.size().
  struct Run {
    Mark base;
    uint64_t first = 0;
    std::deque<TrajectoryEntry> entries;
    bool complete = false;
  };
  std::vector<Run> runs_;  // of one interval; the most recently filled last
  std::size_t total_ = 0;
  std::vector<std::pair<uint64_t, uint64_t>> read_only_;  // [start, end), sorted
  void merge(Run& run);

  bool filling_ = false;
  Mark pending_base_;
  uint64_t pending_first_ = 0;
  std::deque<TrajectoryEntry> pending_;
  std::vector<std::pair<uint64_t, uint64_t>> pending_read_only_;
};

}  // namespace backstep
