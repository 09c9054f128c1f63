// The copy a forward continue leaves inside a long stretch without events
// on its way to a breakpoint's hit, for the first reverse-stepi back from
// that hit (why, and what it costs: stretch_copy.cc).
//
// ReplayTimeline holds one and its forward continue drives it: begin()
// starts a stretch where the run begins (the previous one's copy goes);
// the run's poll asks copy_due(), and at the Interrupted stop that follows,
// take() forks the copy; end() says where the run stopped: a breakpoint's
// address keeps the copy, 0 drops it. The approach (timeline_approach.cc)
// takes the copy with copy_for().
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>

#include "engine/replay/replay_session.h"
#include "engine/timeline/checkpoint_store.h"
#include "engine/timeline/mark.h"

namespace backstep {

class StretchCopy {
 public:
  using Clock = std::chrono::steady_clock;
  // Off makes no copies (for comparisons in tests).
  enum class Use { On, Off };
  void set_use(Use use) { on_ = use == Use::On; }

  // A run through a new stretch begins at `from`.
  void begin(const Mark& from);
  // Whether the run should stop now for a copy: asked once, until take()
  // or a stop (drop_request()). The copy is for an approach: none is due
  // where `approach_available` says the approach cannot run.
  bool copy_due(const std::function<bool()>& approach_available);
  bool asked() const { return stretch_.asked; }
  // The run stopped for another reason than the request.
  void drop_request() { stretch_.asked = false; }
  // The run stopped as asked: forks `session` as the copy, unless it stands
  // on one of `breakpoints` (then it stands at the hit). The copy is one of
  // `checkpoints`' automatic ones: room is made there first.
  void take(ReplaySession& session, const std::set<uint64_t>& breakpoints, CheckpointStore& checkpoints);
  // The run stopped at the breakpoint at `hit` (kept), or elsewhere (0:
  // the copy goes).
  void end(uint64_t hit);

  // Whether the copy lies between `from` and the first execution of `addr`
  // after it; copy_for() hands it over (and counts it used).
  bool has_copy_for(const Mark& from, uint64_t addr) const;
  std::unique_ptr<ReplaySession> copy_for(const Mark& from, uint64_t addr);
  // A copy lives (it counts towards the checkpoints' bound).
  bool holds_copy() const { return stretch_.copy != nullptr; }
  // Approaches that started from a copy.
  uint64_t used() const { return used_; }

 private:
  // The latest forward continue's stretch.
  struct Stretch {
    Mark from;                            // where the run through it began
    uint64_t hit = 0;                     // the breakpoint it stopped at (0: not yet)
    std::unique_ptr<ReplaySession> copy;  // the last copy made on the way
    Clock::time_point began;              // the run's wall-clock start
    Clock::duration forks{};              // spent forking copies
    Clock::duration due{};                // run time at which the next copy is due
    bool asked = false;                   // a stop for a copy was requested
  };
  Stretch stretch_;
  bool on_ = true;
  uint64_t used_ = 0;
};

}  // namespace backstep
