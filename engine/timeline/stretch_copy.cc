// Copies left by a forward continue inside a long stretch without events,
// for the first reverse-stepi back from the breakpoint hit at its end
// (StretchCopy, stretch_copy.h).
//
// Without them, that step replays the whole stretch from its start once
// more to find a place near the hit (timeline_approach.cc, stage 1): as
// long as the continue itself took (10^8 instructions: ~20 ms here), plus
// a copy at each of its time stops. But the continue just ran through the
// same stretch. So while it runs, the wait for the program wakes every
// kStretchPoll; after kFirstCopyAfter of running, then each time it ran a
// third more (never more often than kCopyEvery), the program is stopped
// where it is (as by a debugger's interrupt: engine/replay/
// replay_interrupt.cc), forked, and resumed. Only the last copy stays.
//
// When the run stops at a breakpoint, that copy lies between the stretch's
// start `from` and the breakpoint's first execution after it: the hit.
// A reverse-stepi from the hit counts from `from` to that execution
// (timeline_search.cc, steps_to_trap); with the copy it skips the steps
// it would take first, and the approach starts from the copy (named by
// its state then), at most a quarter of the stretch before the hit.
//
// A stretch shorter than kFirstCopyAfter costs nothing more: no stop falls
// in it, and the ticker's wake-ups are the only work. A longer one pays a
// stop and a fork (0.4-0.7 ms here) per copy: 6 copies for 20 ms. The copy
// counts as an automatic checkpoint (CheckpointStore): it is within
// the limit, and killed with the timeline.
#include "engine/timeline/stretch_copy.h"

#include <algorithm>

#include "values/log.h"

namespace backstep {
namespace {

// The first copy: after the longest stretch a reverse-stepi steps whole
// anyway (timeline_approach.cc: kApproachMinNs, well under this), so that
// short stretches never stop.
constexpr std::chrono::steady_clock::duration kFirstCopyAfter = std::chrono::milliseconds(2);
// The least run between two copies.
constexpr std::chrono::steady_clock::duration kCopyEvery = std::chrono::milliseconds(2);

}  // namespace

void StretchCopy::begin(const Mark& from) {
  stretch_.copy.reset();
  stretch_.from = from;
  stretch_.hit = 0;
  stretch_.began = Clock::now();
  stretch_.forks = {};
  stretch_.due = kFirstCopyAfter;
  stretch_.asked = false;
}

bool StretchCopy::copy_due(const std::function<bool()>& approach_available) {
  if (stretch_.asked || !on_ || !approach_available()) return false;
  if (Clock::now() - stretch_.began - stretch_.forks < stretch_.due) return false;
  stretch_.asked = true;
  return true;
}

void StretchCopy::take(ReplaySession& session, const std::set<uint64_t>& breakpoints, CheckpointStore& checkpoints) {
  stretch_.asked = false;
  Clock::time_point t0 = Clock::now();
  Clock::duration ran = t0 - stretch_.began - stretch_.forks;
  // A stop on a breakpoint's own instruction is its hit (the int3 not run
  // yet): not before it.
  if (!breakpoints.count(session.registers().ip())) {
    stretch_.copy.reset();
    // Room first: the copy is one of the automatic checkpoints.
    checkpoints.make_room();
    stretch_.copy = session.clone();
    stretch_.copy->set_echo(false);
    checkpoints.note_peak();
  }
  Clock::time_point t1 = Clock::now();
  stretch_.forks += t1 - t0;
  stretch_.due = ran + std::max<Clock::duration>(kCopyEvery, ran / 3);
  BS_LOG(Replay, "stretch: a copy after " << std::chrono::duration_cast<std::chrono::microseconds>(ran).count()
                                          << " us of the run, in "
                                          << std::chrono::duration_cast<std::chrono::microseconds>(t1 - t0).count()
                                          << " us");
}

void StretchCopy::end(uint64_t hit) {
  stretch_.asked = false;
  stretch_.hit = hit;
  if (hit == 0) stretch_.copy.reset();
  if (stretch_.copy) {
    BS_LOG(Replay, "stretch: a copy kept on the way from " << stretch_.from.describe() << " to the hit at 0x"
                                                           << std::hex << hit);
  }
}

bool StretchCopy::has_copy_for(const Mark& from, uint64_t addr) const {
  return stretch_.copy && stretch_.hit != 0 && stretch_.hit == addr && !from.at_event && stretch_.from == from;
}

std::unique_ptr<ReplaySession> StretchCopy::copy_for(const Mark& from, uint64_t addr) {
  if (!has_copy_for(from, addr)) return nullptr;
  stretch_.hit = 0;
  ++used_;
  return std::move(stretch_.copy);
}

}  // namespace backstep
