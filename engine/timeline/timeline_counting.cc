// Breakpoint hits counted by the kernel instead of stopped at one by one
// (engine/core/hit_counter.h, ReplaySession::set_counted_stop and
// set_hit_counting): a walk to the n-th hit of a breakpoint stops once at
// that hit (plus a few stops to leave checkpoints), and a backward search
// counts the user's breakpoints between two events instead of stopping at
// each hit. Where the kernel cannot count, a walk counts with a counting
// stub instead (walk_by_stub). Both name the same positions as the int3 stops would: the k-th
// hit of a breakpoint since an event boundary is the k-th execution of
// that address by the thread that runs in the interval.
#include <set>

#include "values/log.h"
#include "engine/timeline/checkpoint_policy.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {
namespace {

// `base` after `k` more hits of the breakpoint `a`.
Mark after_hits(const Mark& base, const Anchor& a, uint64_t k) {
  if (k == 0) return base;
  Mark m = base.after_trap(a);
  m.anchors.back().count += k - 1;
  return m;
}

Anchor breakpoint_anchor(uint64_t addr) {
  Anchor a;
  a.watch.addr = addr;
  return a;
}

}  // namespace

// Where the next walks back most likely go: the last hit, and on the way
// the last multiple of 32 hits before it, of 64, of 128, ... (a walk of a
// million hits leaves at most 15 checkpoints there). Aligned, so that the
// walks to the hits just before (gdb going backwards hit by hit) find them
// and leave none.
std::set<uint64_t> ReplayTimeline::walk_stops(uint64_t done, uint64_t n) {
  std::set<uint64_t> stops{n};
  for (uint64_t every = checkpoint_policy::kHitsPerWalkCheckpoint; every < n; every *= 2) {
    uint64_t at = (n - 1) / every * every;
    if (at <= done) break;
    stops.insert(at);
  }
  return stops;
}

bool ReplayTimeline::walk_counted(ReplaySession& session, const Anchor& a, uint64_t done, uint64_t n,
                                  const std::function<void(uint64_t)>& leave_checkpoint) {
  if (!kernel_counting_) return walk_by_stub(session, a, done, n, leave_checkpoint);
  // One stop at the last hit instead of one at each, plus the stops that
  // leave checkpoints (walk_stops()).
  uint64_t at = done;
  for (uint64_t hit : walk_stops(done, n)) {
    if (!session.set_counted_stop(a.addr(), hit - at)) {
      BS_ASSERT(at == done, "counting hits of 0x" << std::hex << a.addr() << " was refused part-way");
      return false;
    }
    ReplayStop s = session.resume({.stop_after_event = true});
    BS_ASSERT(s.kind == ReplayStop::Kind::Breakpoint && s.address == a.addr() && !s.event,
              "walking to hit " << hit << " of 0x" << std::hex << a.addr() << " (counted): stop kind " << std::dec
                                << static_cast<int>(s.kind) << " at event " << session.next_event());
    at = hit;
    leave_checkpoint(hit);
  }
  ++counted_walks_;
  return true;
}

// Without a kernel that counts (debug registers that never fire), the same
// stops come from a counting stub (engine/replay/replay_count_stub.cc):
// the code at the anchor's address jumps to a countdown, the program runs
// at its own speed, and the run stops right before the hit the countdown
// ends at; disarmed, the stub leaves the thread there as a counted stop
// does (a Breakpoint reported at the address). An int3 stop per hit costs
// a ptrace stop and a step over the restored byte, tens of microseconds:
// the approach's anchors ("X x115591") took seconds a seek.
bool ReplayTimeline::walk_by_stub(ReplaySession& session, const Anchor& a, uint64_t done, uint64_t n,
                                  const std::function<void(uint64_t)>& leave_checkpoint) {
  // Not over the code the next event's own stub patches (a position's,
  // replay_count_stub.cc): both would count with a trap per pass.
  if (!use_stub_walks_ || !session.counting_stub_possible(a.addr())) return false;
  uint64_t at = done;
  for (uint64_t hit : walk_stops(done, n)) {
    // The walk's run names no breakpoint: none can lie in the moved code.
    if (!session.arm_counting_stub(a.addr(), hit - at, {})) {
      BS_ASSERT(at == done, "a counting stub at 0x" << std::hex << a.addr() << " was refused part-way");
      return false;
    }
    ReplayStop s = session.resume({.stop_after_event = true});
    uint64_t counted = session.counting_stub_count();
    session.disarm_counting_stub();
    BS_ASSERT(s.kind == ReplayStop::Kind::Interrupted && !s.event && counted == hit - at &&
                  session.registers().ip() == a.addr(),
              "walking to hit " << hit << " of 0x" << std::hex << a.addr() << " (counting stub): stop kind "
                                << std::dec << static_cast<int>(s.kind) << " after " << counted << " of "
                                << hit - at << " passes, at event " << session.next_event());
    at = hit;
    leave_checkpoint(hit);
  }
  ++stub_walks_;
  return true;
}

bool ReplayTimeline::count_user_breakpoints(ReplaySession& s, HitTally& tally) {
  if (!kernel_counting_ || !watchpoints_.empty() || breakpoints_.empty() || breakpoints_.size() > kDebugRegisters) {
    return false;
  }
  if (!s.set_hit_counting(breakpoints_)) return false;
  tally.taken.clear();
  ++counted_searches_;
  return true;
}

bool ReplayTimeline::take_counted_hits(ReplaySession& s, HitTally& tally, Mark& cur, bool every_hit,
                                       const std::function<void(Candidate)>& keep) {
  std::optional<ReplaySession::HitCount> fresh;  // the one (thread, address) with new hits
  bool several = false;
  for (const ReplaySession::HitCount& c : s.hit_counts()) {
    uint64_t& taken = tally.taken[{c.tid, c.addr}];
    if (c.hits <= taken) continue;
    if (fresh) several = true;
    fresh = ReplaySession::HitCount{c.tid, c.addr, c.hits - taken};
    taken = c.hits;
  }
  if (several) return false;
  if (!fresh) return true;
  keep_counted_hits(cur, fresh->addr, fresh->tid, fresh->hits, every_hit, keep);
  cur = after_hits(cur, breakpoint_anchor(fresh->addr), fresh->hits);
  return true;
}

void ReplayTimeline::keep_counted_hits(const Mark& base, uint64_t addr, uint32_t tid, uint64_t k, bool every_hit,
                                       const std::function<void(Candidate)>& keep) {
  if (k == 0) return;
  TargetStop stop;
  stop.kind = TargetStop::Kind::Breakpoint;
  stop.address = addr;
  stop.hardware = hw_breakpoints_.count(addr) > 0;
  stop.tid = static_cast<pid_t>(tid);
  Anchor a = breakpoint_anchor(addr);
  // Only the most recent kHitListSize could stay listed.
  uint64_t first = !every_hit ? k : k > checkpoint_policy::kHitListSize ? k - checkpoint_policy::kHitListSize + 1 : 1;
  for (uint64_t j = first; j <= k; ++j) keep(Candidate{after_hits(base, a, j), stop});
}

ReplayTimeline::CountedLeg ReplayTimeline::search_leg_counted(ReplaySession& s, const Anchor& a, uint64_t n,
                                                              const Mark& prefix, bool last_counts, bool every_hit,
                                                              const std::function<void(Candidate)>& keep) {
  if (!kernel_counting_ || !watchpoints_.empty() || a.kind != Anchor::Kind::Breakpoint) return CountedLeg::Refused;
  std::set<uint64_t> others = breakpoints_;
  others.erase(a.addr());
  if (others.size() + 1 > kDebugRegisters) return CountedLeg::Refused;
  if (!s.set_hit_counting(others)) return CountedLeg::Refused;
  if (!s.set_counted_stop(a.addr(), n)) {
    s.set_hit_counting({});
    return CountedLeg::Refused;
  }
  ReplayStop r = s.resume({.stop_after_event = true});
  BS_ASSERT(r.kind == ReplayStop::Kind::Breakpoint && r.address == a.addr() && !r.event,
            "searching along " << prefix.describe() << " to hit " << n << " of 0x" << std::hex << a.addr()
                               << " (counted): stop kind " << std::dec << static_cast<int>(r.kind));
  std::vector<ReplaySession::HitCount> counts = s.hit_counts();
  s.set_hit_counting({});
  ++counted_searches_;
  bool anchor_is_users = breakpoints_.count(a.addr()) > 0;
  // Hits of the user's other breakpoints: in what order with the anchor's
  // (or with each other) the kernel does not say.
  // Except where the anchor's only hit is the leg's end: every other hit
  // came before it.
  if (counts.size() > 1 || (anchor_is_users && !counts.empty() && n > 1)) return CountedLeg::Ambiguous;
  if (anchor_is_users && !counts.empty()) {
    keep_counted_hits(prefix, counts.front().addr, counts.front().tid, counts.front().hits, every_hit, keep);
    if (last_counts) keep_counted_hits(prefix, a.addr(), s.stopped_thread(), 1, every_hit, keep);
  } else if (anchor_is_users) {
    keep_counted_hits(prefix, a.addr(), s.stopped_thread(), last_counts ? n : n - 1, every_hit, keep);
  } else if (!counts.empty()) {
    keep_counted_hits(prefix, counts.front().addr, counts.front().tid, counts.front().hits, every_hit, keep);
  }
  return CountedLeg::Done;
}

}  // namespace backstep
