// The checkpoints of a timeline: forks of the replay along the way, kept so
// that any position is reached by replaying forward from the nearest one
// before it (docs/design.md, "Checkpoints", "Bounded checkpoints").
//
// The store decides which checkpoints live: it picks the best one before a
// position, places automatic ones along forward replay, and keeps the
// automatic ones within a count and a memory bound by evicting them in an
// order that leaves the survivors spread over what was explored. It never
// replays: ReplayTimeline walks and seeks from what it hands out. What it
// needs of a checkpoint's replay (a fork of it, what it costs) goes through
// HeldSession and a fork callback, so the unit tests use fake sessions.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "engine/timeline/checkpoint_policy.h"
#include "engine/timeline/debug_target.h"
#include "engine/timeline/mark.h"

namespace backstep {

class ReplaySession;

// The replay a checkpoint holds, stopped where the checkpoint is. The
// production one wraps a ReplaySession (checkpoint_memory.cc).
class HeldSession {
 public:
  virtual ~HeldSession() = default;
  // A new replay from here (the checkpoint stays as it is).
  virtual std::unique_ptr<ReplaySession> clone() = 0;
  // KiB its processes hold: their proportional share of the pages.
  virtual uint64_t memory_kib() const = 0;
};

class CheckpointStore {
 public:
  struct Checkpoint {
    int id = 0;  // > 0: made by the user; <= 0: automatic
    Mark mark;
    std::unique_ptr<HeldSession> session;
    // At a State anchor (an interrupt's stop): the cheap way back there,
    // kept when others are thinned (timeline_interrupt.cc).
    bool holds_state = false;
  };
  // Who makes a checkpoint. Automatic ones (and AtState ones, evicted
  // only after the others) count towards the bounds; the user's do not.
  enum class Kind { User, Automatic, AtState };
  // best_before(): Inclusive takes a checkpoint at the mark itself,
  // Exclusive only one before it; AtBoundary takes only checkpoints at an
  // event boundary.
  enum class Bound { Inclusive, Exclusive };
  enum class Where { Any, AtBoundary };
  // Makes the fork a new checkpoint holds. Called after room is made, so
  // that no more processes than the bound allows ever live.
  using Fork = std::function<std::unique_ptr<HeldSession>()>;
  using Clock = std::chrono::steady_clock;

  // `memory_limit_kib`: the bound on the automatic checkpoints' memory.
  // `held_elsewhere`: how many automatic checkpoints live outside the store
  // (a forward continue's copy, stretch_copy.cc): they count towards
  // the bound, so room is made for them too.
  explicit CheckpointStore(uint64_t memory_limit_kib, std::function<std::size_t()> held_elsewhere = {});

  // The start of history: the first checkpoint, never evicted. The clock
  // that makes automatic checkpoints due starts here.
  void add_start(const Mark& mark, const Fork& fork);
  // A new checkpoint at `mark`; returns its id. An automatic one first
  // makes room within the count bound, and then thins the others.
  int add(Kind kind, const Mark& mark, const Fork& fork);
  // How often automatic checkpoints are due along forward replay: after
  // some replay time (Timed), or at every new event boundary where the
  // replay crawls (watchpoints emulated by single steps, 20-40 us an
  // instruction: a backward search from an older checkpoint would crawl
  // all the way, and a fork costs less than a few dozen steps).
  enum class Pace { Timed, EveryBoundary };
  // An automatic checkpoint at `here` if one is due there: at an event
  // boundary, kEventsPerCheckpoint events or (past the newest) some replay
  // time since the last, or any boundary past the newest at
  // Pace::EveryBoundary. Returns whether one was made.
  bool add_if_due(const Mark& here, const Fork& fork, Pace pace = Pace::Timed);

  // The latest checkpoint at or before `target` on its way (a prefix of it);
  // nullptr if none.
  const Checkpoint* best_before(const Mark& target, Bound bound, Where where = Where::Any) const;
  // Whether a checkpoint stands exactly at `mark`.
  bool has_at(const Mark& mark) const;
  // The start of history.
  const Checkpoint& front() const { return list_.front(); }
  // The user's checkpoint `id`, or nullptr.
  const Checkpoint* find_user(int id) const;
  std::size_t size() const { return list_.size(); }
  std::vector<Checkpoint>::const_iterator begin() const { return list_.begin(); }
  std::vector<Checkpoint>::const_iterator end() const { return list_.end(); }

  // Drops the user's checkpoint `id` (not counted as evicted); false if
  // there is none.
  bool remove_user(int id);
  // Drops automatic checkpoint `id`, if it still lives (counted as evicted).
  void evict_id(int id);
  // Keeps at most `keep` of the checkpoints held at State anchors: the
  // oldest goes (its anchor is then found again by searching).
  void cap_states(std::size_t keep);

  // Evicts automatic checkpoints until the count bound holds.
  void thin();
  // Makes room for one more automatic checkpoint (one held elsewhere).
  void make_room();
  // Notes the number of automatic checkpoints now, for the peak in stats().
  void note_peak();

  // The checkpoint a walk starts from stays while the walk leaves others
  // (the next search back most likely starts there again): never evicted
  // while pinned. pin(nullopt) unpins.
  const std::optional<Mark>& pinned() const { return pinned_; }
  void pin(const std::optional<Mark>& at) { pinned_ = at; }

  // The bounds (both throw std::invalid_argument out of range, and evict
  // at once what no longer fits).
  void set_limit(std::size_t limit);
  void set_memory_limit(uint64_t kib);
  // Measures the automatic checkpoints' memory.
  CheckpointStats stats() const;

 private:
  // Automatic checkpoints live, those held elsewhere included.
  std::size_t automatic() const;
  std::size_t held_elsewhere() const { return held_elsewhere_ ? held_elsewhere_() : 0; }
  // The checkpoint to evict so that at most `allowed` automatic ones live
  // (and those at boundaries keep to their share); nullopt if none need go
  // (checkpoint_bound.cc).
  std::optional<std::size_t> eviction_victim(std::size_t allowed) const;
  // Of `candidates` (checkpoints at event boundaries), the one whose
  // neighbours by event are closest.
  std::size_t spread_victim(const std::vector<std::size_t>& candidates) const;
  void evict(std::size_t index);
  // The memory bound: measures the automatic checkpoints and evicts in the
  // usual order until they fit.
  void enforce_memory_limit();
  uint64_t automatic_memory_kib() const;

  std::vector<Checkpoint> list_;  // [0]: the start of history
  std::function<std::size_t()> held_elsewhere_;
  int next_user_id_ = 1;
  int next_automatic_id_ = 0;  // counts down: a lower id was made later
  Clock::time_point last_automatic_time_;
  std::size_t limit_ = checkpoint_policy::kDefaultMaxCheckpoints;
  std::size_t peak_automatic_ = 0;
  uint64_t evicted_ = 0;
  uint64_t memory_limit_kib_ = 0;
  uint64_t evicted_for_memory_ = 0;
  std::size_t made_since_memory_check_ = 0;
  std::optional<Mark> pinned_;
};

}  // namespace backstep
