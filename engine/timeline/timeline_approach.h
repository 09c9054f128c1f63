// The approach: a reverse-stepi into a long stretch without events brings
// the replay close to the breakpoint hit at its end at the program's own
// speed, in two stages (time, then passes), before single-stepping the
// rest. How and why: timeline_approach.cc.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "engine/replay/replay_session.h"
#include "engine/timeline/mark.h"

namespace backstep {

class ReplayTimeline;

// Whether the timeline may count passes with counting stubs in the program
// (engine/replay/replay_count_stub.cc): the approach's passes, and walks
// where the kernel cannot count. BACKSTEP_COUNTING_STUB=0 turns them off
// (tests compare the two), read once.
bool counting_stubs_enabled();

// What the timeline keeps of the approaches from one reverse-stepi to the
// next (ReplayTimeline holds one).
struct ApproachState {
  bool on = true;           // ReplayTimeline::set_approach
  uint64_t approaches = 0;  // approaches that got closer
  // Breakpoint address -> steps of its last pass counted back. A reverse-
  // stepi before one of a loop's hits of it caches the steps of many
  // passes at once when a pass is known to be short (batched_before,
  // timeline_search.cc).
  std::map<uint64_t, uint64_t> pass_steps;
};

// One approach, made for one reverse-stepi (ReplayTimeline::steps_to_trap,
// timeline_search.cc). It uses the timeline's sessions and checkpoints,
// and leaves checkpoints on the way.
class TrapApproach {
 public:
  // A stretch of less CPU time than a threshold is declined (stepping it
  // whole caches all its positions) unless Approach.
  enum class ShortStretch { Decline, Approach };
  // From `from`, where the replay stands, towards the next execution of
  // `addr` by thread `runs` (recorded id), the one that runs there: its
  // CPU time is what stage 1 measures and cuts.
  TrapApproach(ReplayTimeline& timeline, const Mark& from, uint64_t addr, uint32_t runs,
               ShortStretch short_stretch);
  // A later position before the hit and closer to it (the replay then
  // stands there); nullopt where the kernel cannot help, where the stretch
  // is declined, or where no nearer place was found.
  std::optional<Mark> run();

 private:
  // Stage 1: time. Declined: the stretch is short enough to step whole.
  enum class Timed { Declined, Done };
  Timed time();
  // One run of stage 1 from `start_` to the hit. Last: no later run gets
  // closer.
  enum class Round { Again, Last, Declined };
  Round timed_run();
  // Stage 2: passes through the instruction `start_` stands on (or a
  // counting stub's site), up to the hit: how many.
  uint64_t count_passes();
  // The passes counted by a stub in `s`; nullopt where it cannot be armed
  // (nothing changed).
  std::optional<uint64_t> passes_by_stub(ReplaySession& s);
  // The passes counted by the kernel, a chunk at a time; `s` ends as the
  // copy at the last chunk's end (or a fresh one at `start_`).
  uint64_t passes_by_kernel(std::unique_ptr<ReplaySession>& s);

  // Runs `s` once around the loop it stands in, unclocked; false where
  // the hit came first (see the .cc).
  bool once_around(ReplaySession& s);
  // A resume that does not single-step (see resume_free in the .cc).
  ReplayStop resume_free(ReplaySession& s);
  // Runs `s` to the hit.
  void run_to_hit(ReplaySession& s, const char* what);
  // A copy where `start_` is: the replay itself stands at `from_`.
  std::unique_ptr<ReplaySession> session_at_start();
  // Below this much CPU time to the hit, time stops cut no further.
  uint64_t time_floor() const;
  // A copy between `from_` and the hit becomes the checkpoint to start
  // from.
  void keep(ReplaySession& copy);
  // "X x n" from `start_`.
  Mark passes_mark(uint64_t n) const;

  ReplayTimeline& t_;
  const Mark from_;
  const uint64_t addr_;
  const uint32_t runs_;  // the thread that runs to the hit
  const ShortStretch short_stretch_;
  // Every run of the approach stops at the hit's breakpoint alone.
  const std::set<uint64_t> hit_breakpoint_;
  const ReplaySession::Resume run_;

  Mark start_;  // the nearest place known before the hit
  // The CPU time from `start_` to the hit: unknown until the first run.
  uint64_t rest_ = 0;
  bool known_ = false;
  int kept_ = 0;  // the id of the checkpoint at `start_`, once one is made here
  // Where the passes will be counted: by a stub at `stub_at_` (from the
  // place `start_` stands on), else by a debug register.
  std::optional<uint64_t> stub_at_;
  uint64_t x_ = 0;        // stage 2: the instruction whose passes are counted
};

}  // namespace backstep
