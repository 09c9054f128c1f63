// One backward search: from a checkpoint, the replay runs forward to a later
// position `to` with the user's breakpoints and watchpoints armed (or
// counted by the kernel), and the last of their hits before `to` is the
// answer. ReplayTimeline::continue_backward (timeline_search.cc) runs one
// per checkpoint, going back until one finds a hit.
//
// It runs in two stages. Stage 1: up to the event boundary of `to`, every
// user trap is a candidate. Stage 2: along `to`'s legs (steps, trap hits,
// State anchors), with the user's traps armed too, up to `to` itself.
//
// A search is made for one run and holds what the run has found so far; it
// uses the timeline's helpers (sessions at a position, the user's traps,
// counted hits) and changes the timeline only through them.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>

#include "engine/replay/replay_session.h"
#include "engine/timeline/mark.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {

class BackwardSearch {
 public:
  using Checkpoint = ReplayTimeline::Checkpoint;
  // Whether a stop exactly at `to` counts. Included: `to` is a checkpoint
  // an earlier search went on from (the user's position is later), so a
  // stop there was not seen by that search. Excluded: `to` is where the
  // user stands.
  enum class End { Excluded, Included };
  struct Result {
    std::optional<Candidate> hit;  // the last hit before `to`, if any
    bool interrupted = false;      // the client asked to stop first: no answer
  };

  // With `all`, every candidate found on the way is appended there too (the
  // most recent checkpoint_policy::kHitListSize).
  BackwardSearch(ReplayTimeline& timeline, const Checkpoint& from, const Mark& to, End end,
                 std::deque<Candidate>* all = nullptr);
  Result run(const std::function<bool()>& interrupted);

 private:
  // Stage 1 (see above). Finished: the search ended in it (at `to`, or at
  // the end of the program); Legs: stage 2 follows.
  enum class Stage1 { Finished, Legs, Interrupted };
  Stage1 run_to_boundary(const std::function<bool()>& interrupted);
  // Stage 2: each of `to`'s legs in turn, then done().
  std::optional<Candidate> follow_legs();
  // The last leg ends at `to` itself.
  enum class Leg { Inner, Final };
  void step_leg(const Move& leg, Leg which);
  void state_leg(const Anchor& a, Leg which);
  void trap_leg(const Move& leg, Leg which);
  // The `n` passes of a trap leg's anchor counted by a counting stub
  // (where the kernel does not count; the user's breakpoints still stop
  // the run, each hit a candidate). False, nothing done, where no stub
  // can count them.
  bool stub_leg(const Anchor& a, uint64_t n);

  // Every candidate, in order, also goes to `all_` (the most recent
  // kHitListSize of them).
  void keep(Candidate c);
  // A user trap that `r` stopped at is a candidate at cur_.
  void consider(const ReplayStop& r);
  // The hits counted by the kernel since the last stop become candidates.
  void take_counted();
  // The user's hits from `prefix` (where `session` is) up to the anchor.
  void keep_hits_before(ReplaySession& session, const Mark& prefix, const Mark& at_state);
  // The answer, once the search reached `to`: the hits before a State
  // anchor are looked for only if none came after it.
  std::optional<Candidate> done();
  // The n-th hit of `a` ends a leg: the prefix grows by it.
  void leg_done(const Anchor& a, uint64_t n);

  ReplayTimeline& t_;
  const Mark to_;
  const End end_;
  std::deque<Candidate>* all_;
  std::unique_ptr<ReplaySession> s_;  // the replay that searches
  Mark cur_;                          // where s_ stands
  std::optional<Candidate> last_;     // the latest candidate
  uint64_t kept_ = 0;                 // candidates kept so far
  // Breakpoint hits counted by the kernel (timeline_counting.cc) in stage 1,
  // instead of stopped at.
  ReplayTimeline::HitTally tally_;
  bool counting_ = false;
  // A State anchor's earlier hits, looked for only if none comes after it.
  struct BeforeState {
    std::unique_ptr<ReplaySession> session;  // at the leg before the anchor
    Mark prefix, at_state;
    uint64_t kept_then = 0;  // candidates kept before it
  };
  std::optional<BeforeState> before_state_;
  // Stage 2: `to`'s legs done so far.
  Mark prefix_;
};

}  // namespace backstep
