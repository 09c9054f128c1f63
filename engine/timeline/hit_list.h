// The hits the last successful backward search listed, for the traps it
// searched with. A reverse-continue from the listed hit the user stands at
// (or from the instruction just before it, where gdb's step off the
// breakpoint left it) lands on the listed hit before, without searching
// again: gdb resumes backwards after every hit of a conditional breakpoint
// whose condition is false (docs/design.md, "The list of hits of the last
// backward search").
//
// The list never replays: ReplayTimeline seeks to what it hands out
// (timeline_search.cc, continue_backward_listed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <vector>

#include "engine/replay/replay_session.h"
#include "engine/timeline/debug_target.h"
#include "engine/timeline/mark.h"

namespace backstep {

// A stop a backward search found, and where: a candidate for its answer.
struct Candidate {
  Mark mark;
  TargetStop stop;
};

// What decides which stops a search finds.
struct TrapConfig {
  std::set<uint64_t> breakpoints, hw_breakpoints;
  std::vector<Watchpoint> watchpoints;
  std::optional<std::set<int>> catch_syscalls;
  std::set<int> pass_signals;
  bool operator==(const TrapConfig&) const = default;
};

class HitList {
 public:
  // A search with `traps` listed `hits` (the most recent
  // checkpoint_policy::kHitListSize); the last is the one it returned,
  // where the user is brought.
  void replace(TrapConfig traps, std::deque<Candidate> hits);
  // The listed hit a reverse-continue from `at` lands on, if the list
  // answers for the traps set now (`traps`); the list then stands there.
  // `pc_at` reads the pc at `at`, asked only when it decides.
  const Candidate* take_before(const TrapConfig& traps, const Mark& at, const std::function<uint64_t()>& pc_at);
  // A reverse step from `from` landed on `landed`.
  void note_step_back(const Mark& from, const Mark& landed);
  // A reverse step landed on another thread's instruction: not a step off
  // the listed hit.
  void forget_step_off();
  // Reverse-continues answered from the list.
  uint64_t served() const { return served_; }

 private:
  // The index of the listed hit to land on from `at`, if the list answers.
  std::optional<std::size_t> index_before(const TrapConfig& traps, const Mark& at,
                                          const std::function<uint64_t()>& pc_at) const;

  struct List {
    TrapConfig traps;
    std::deque<Candidate> hits;
    std::size_t at = 0;               // the listed hit the user was brought to last
    std::optional<Mark> stepped_off;  // where a step back from hits[at] landed
  };
  std::optional<List> list_;  // the last successful backward search's
  uint64_t served_ = 0;
};

}  // namespace backstep
