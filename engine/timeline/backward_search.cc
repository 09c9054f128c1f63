// One backward search (backward_search.h): the runs from a checkpoint to a
// later position, and the candidates kept on the way.
#include "engine/timeline/backward_search.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "values/log.h"
#include "engine/timeline/checkpoint_policy.h"

namespace backstep {
namespace {

std::string to_hex(uint64_t v) {
  std::ostringstream os;
  os << std::hex << v;
  return os.str();
}

}  // namespace

BackwardSearch::BackwardSearch(ReplayTimeline& timeline, const Checkpoint& from, const Mark& to, End end,
                               std::deque<Candidate>* all)
    : t_(timeline), to_(to), end_(end), all_(all), s_(from.session->clone()), cur_(from.mark), prefix_{to.event, {}, 0} {
  s_->set_echo(false);
}

BackwardSearch::Result BackwardSearch::run(const std::function<bool()>& interrupted) {
  switch (run_to_boundary(interrupted)) {
    case Stage1::Interrupted: return Result{std::nullopt, true};
    case Stage1::Finished: return Result{last_, false};
    case Stage1::Legs: break;
  }
  return Result{follow_legs(), false};
}

void BackwardSearch::keep(Candidate c) {
  ++kept_;
  if (all_) {
    all_->push_back(c);
    if (all_->size() > checkpoint_policy::kHitListSize) all_->pop_front();
  }
  last_ = std::move(c);
}

void BackwardSearch::consider(const ReplayStop& r) {
  if (auto stop = t_.user_trap(r, *s_)) keep(Candidate{cur_, *stop});
}

void BackwardSearch::take_counted() {
  if (!counting_) return;
  Mark start = cur_;
  if (t_.take_counted_hits(*s_, tally_, cur_, all_ != nullptr, [this](Candidate c) { keep(std::move(c)); })) return;
  // Hits of several breakpoints in one interval: that interval again,
  // stopping at each, gives their order.
  std::unique_ptr<ReplaySession> again = t_.session_at(start);
  for (Candidate& c : t_.hits_to_event(*again, start, std::nullopt)) keep(std::move(c));
}

BackwardSearch::Stage1 BackwardSearch::run_to_boundary(const std::function<bool()>& interrupted) {
  // Up to the event boundary of `to` (and on to the event itself when `to`
  // is "reached"), every user trap is a candidate. Breakpoint hits are
  // counted by the kernel where it can (timeline_counting.cc) and become
  // candidates at the next stop.
  counting_ = t_.count_user_breakpoints(*s_, tally_);
  // Counted, the run needs no int3 of the user's (and they set no watchpoint).
  const Traps run_traps = counting_ ? Traps{} : t_.user_traps();
  auto stop_before = [this](const trace::Event& e) { return t_.stops_before(e); };
  const bool included = end_ == End::Included;
  for (;;) {
    bool more = s_->next_event() < to_.event || (to_.at_event && s_->next_event() == to_.event);
    if (!more) break;
    if (interrupted && interrupted()) return Stage1::Interrupted;
    ReplayStop r = s_->resume({.stop_after_event = true, .stop_before = stop_before, .traps = run_traps});
    take_counted();
    switch (r.kind) {
      case ReplayStop::Kind::EventPending:
        cur_ = Mark{s_->next_event(), {}, 0, true};
        if (cur_ == to_ && !included) return Stage1::Finished;
        keep(Candidate{cur_, t_.pending_stop(*s_->peek_next())});
        if (cur_ == to_) return Stage1::Finished;
        break;
      case ReplayStop::Kind::EventReplayed:
        cur_ = Mark{s_->next_event(), {}, 0};
        if (cur_ == to_ && !included) return Stage1::Finished;
        consider(r);
        if (cur_ == to_) return Stage1::Finished;
        break;
      case ReplayStop::Kind::Watchpoint:
        // A write is undone first when going back: a watch hit reported
        // right after it (even at `to` itself) counts as before `to`.
        if (r.by_kernel) {
          cur_ = Mark{s_->next_event(), {}, 0};
          consider(r);
          if (cur_ == to_) return Stage1::Finished;
        } else {
          cur_ = cur_.after_trap(ReplayTimeline::trap_of(r, t_.watchpoints_));
          consider(r);
        }
        break;
      case ReplayStop::Kind::Breakpoint:
        cur_ = cur_.after_trap(ReplayTimeline::trap_of(r, t_.watchpoints_));
        consider(r);
        break;
      case ReplayStop::Kind::Step:
        break;
      case ReplayStop::Kind::ProgramEnd:
      case ReplayStop::Kind::TraceEnd:
      case ReplayStop::Kind::Interrupted:  // not asked for
        return Stage1::Finished;
    }
  }
  if (to_.at_event) return Stage1::Finished;
  if (counting_) s_->set_hit_counting({});
  return Stage1::Legs;
}

void BackwardSearch::keep_hits_before(ReplaySession& session, const Mark& prefix, const Mark& at_state) {
  std::unique_ptr<ReplaySession> probe = t_.session_at(at_state);
  std::optional<StateKey> first_after = t_.first_hit_state(*probe);
  bool missed = false;
  std::vector<Candidate> hits = t_.hits_to_event(session, prefix, first_after, &missed);
  if (missed) {
    // The run from the prefix never met the hit the probe saw after the
    // anchor (under syscall buffering a replay's path to the anchor's
    // state has been seen to differ: gdb.buf_step, 1 run in 3). The exact
    // way: from the prefix again, stopping at every pass through the
    // anchor's pc as well, up to the anchor itself.
    std::unique_ptr<ReplaySession> again = t_.session_at(prefix);
    hits = t_.hits_to_state(*again, prefix, at_state.anchors.back());
  }
  for (Candidate& c : hits) keep(std::move(c));
}

std::optional<Candidate> BackwardSearch::done() {
  if (!before_state_) return last_;
  BeforeState b = std::move(*before_state_);
  before_state_.reset();
  if (kept_ > b.kept_then) {
    // A hit after the anchor: the list must not skip the ones before it.
    if (all_) {
      std::size_t after = static_cast<std::size_t>(kept_ - b.kept_then);
      if (all_->size() > after) all_->erase(all_->begin(), all_->end() - static_cast<long>(after));
    }
    return last_;
  }
  keep_hits_before(*b.session, b.prefix, b.at_state);
  return last_;
}

void BackwardSearch::leg_done(const Anchor& a, uint64_t n) {
  Anchor ended = a;
  ended.count = n;
  ended.steps_before = prefix_.steps;
  prefix_.anchors.push_back(ended);
  prefix_.steps = 0;
  cur_ = prefix_;
}

std::optional<Candidate> BackwardSearch::follow_legs() {
  // Along `to`'s legs, with the user's traps armed too.
  std::vector<Move> legs = to_.moves();
  for (std::size_t i = 0; i < legs.size(); ++i) {
    const Move& leg = legs[i];
    Leg which = i + 1 == legs.size() ? Leg::Final : Leg::Inner;
    if (!leg.is_trap) {
      step_leg(leg, which);
    } else if (leg.trap.kind == Anchor::Kind::State) {
      state_leg(leg.trap, which);
    } else {
      trap_leg(leg, which);
    }
  }
  return done();
}

void BackwardSearch::step_leg(const Move& leg, Leg which) {
  for (uint64_t n = 1; n <= leg.n; ++n) {
    ReplayStop r = s_->resume({.single_step = true, .traps = t_.watch_traps()});
    cur_ = prefix_;
    cur_.steps += n;
    if (r.kind == ReplayStop::Kind::Watchpoint) {
      consider(r);
    } else if (which == Leg::Final && n == leg.n) {
      break;
    } else if (uint64_t pc = s_->registers().ip(); t_.breakpoints_.count(pc)) {
      TargetStop hit = t_.make_stop(TargetStop::Kind::Breakpoint, pc);
      hit.tid = static_cast<pid_t>(s_->stopped_thread());
      keep(Candidate{cur_, hit});
    }
  }
  prefix_.steps += leg.n;
}

void BackwardSearch::state_leg(const Anchor& a, Leg which) {
  // No trap counts the way to it, and it may lie millions of passes
  // round a loop from the anchor before. From a copy of the session at
  // the anchor, run to the user's first trap hit after it (if any before
  // the next event); from here, run with the user's traps to the hit in
  // that hit's state: equal state means an equal future, so it is the
  // same hit, and the hits before it are those before the anchor. Both
  // runs go at the program's own speed between hits.
  // Without traps of the user's there is nothing to look for.
  // The hits after the anchor are looked for first: only if there is
  // none are those before it (the run with a stop at each hit, which
  // may be millions of passes from the leg before: an approach's
  // anchor, timeline_approach.cc, lies near the end of a long loop).
  Mark at_state = prefix_.after_trap(a);
  bool traps = !t_.breakpoints_.empty() || !t_.watchpoints_.empty();
  if (traps && !before_state_) {
    before_state_ = BeforeState{std::move(s_), prefix_, at_state, kept_};
  } else if (traps) {
    keep_hits_before(*s_, prefix_, at_state);
  }
  if (which == Leg::Final) return;  // done() follows
  s_ = t_.session_at(at_state);
  prefix_ = cur_ = at_state;
  // The legs that follow are steps: a breakpoint at the state's own pc
  // is hit there, before them.
  if (t_.breakpoints_.count(a.addr())) {
    TargetStop hit = t_.make_stop(TargetStop::Kind::Breakpoint, a.addr());
    hit.tid = static_cast<pid_t>(s_->stopped_thread());
    keep(Candidate{cur_, hit});
  }
}

void BackwardSearch::trap_leg(const Move& leg, Leg which) {
  const Anchor& a = leg.trap;
  std::set<uint64_t> bps = t_.breakpoints_;
  std::vector<Watchpoint> watches = t_.watchpoints_;
  if (a.kind == Anchor::Kind::Breakpoint) {
    bps.insert(a.addr());
  } else if (std::find(watches.begin(), watches.end(), a.watch) == watches.end()) {
    // First, so that it has a debug register whatever the user set since.
    watches.insert(watches.begin(), a.watch);
  }
  if (watch_slot_count(watches) > kDebugRegisters) {
    // This stretch is counted in hits of a watchpoint the user has since
    // replaced; with the user's it needs more debug registers than there
    // are, and searching without some would miss their hits.
    throw std::runtime_error(
        "going back from here needs the debug registers of an earlier watchpoint (at 0x" + to_hex(a.addr()) +
        ", " + std::to_string(a.watch.len) + " bytes) as well as those of the current ones; delete or "
        "disable a watchpoint, or go back with `run` and forward again");
  }
  const bool included = end_ == End::Included;
  // Counted even for a leg of one hit when the user has breakpoints: a
  // breakpoint after a long loop, and one in the loop.
  std::size_t others = t_.breakpoints_.size() - t_.breakpoints_.count(a.addr());
  bool count_leg = leg.n >= checkpoint_policy::kCountedWalkMinHits || others > 0;
  if (a.kind == Anchor::Kind::Breakpoint && count_leg) {
    // The anchor's hits and the user's breakpoints counted by the kernel.
    bool last_counts = which == Leg::Inner || included;
    ReplayTimeline::CountedLeg counted = t_.search_leg_counted(*s_, a, leg.n, prefix_, last_counts, all_ != nullptr,
                                                               [this](Candidate c) { keep(std::move(c)); });
    if (counted == ReplayTimeline::CountedLeg::Done) {
      leg_done(a, leg.n);
      return;
    }
    if (counted == ReplayTimeline::CountedLeg::Ambiguous) {
      s_ = t_.session_at(prefix_);  // the leg again, stopping at each hit
    }
    if (counted == ReplayTimeline::CountedLeg::Refused && stub_leg(a, leg.n)) return;
  }
  const Traps leg_traps{bps, watches, t_.pending_breakpoints_, t_.breakpoint_images_};
  for (uint64_t hits = 0; hits < leg.n;) {
    ReplayStop r = s_->resume({.stop_after_event = true, .traps = leg_traps});
    BS_ASSERT(!r.event && (r.kind == ReplayStop::Kind::Breakpoint || r.kind == ReplayStop::Kind::Watchpoint),
              "searching towards " << to_.describe() << ": unexpected stop at " << cur_.describe());
    Anchor t = ReplayTimeline::trap_of(r, watches);
    cur_ = cur_.after_trap(t);
    if (t.kind == a.kind && t.addr() == a.addr() && ++hits == leg.n) {
      leg_done(a, leg.n);
      if (which == Leg::Final) {  // reached `to`
        if (r.kind == ReplayStop::Kind::Watchpoint || included) consider(r);
        return;  // done() follows
      }
    }
    consider(r);
  }
}

bool BackwardSearch::stub_leg(const Anchor& a, uint64_t n) {
  // Only the anchor's passes are counted: a breakpoint of the user's there
  // (each hit a candidate), watchpoints (stepped here, through the stub's
  // code) or a breakpoint in the code that would move leave it to int3s.
  if (!t_.use_stub_walks_ || !t_.watchpoints_.empty() || t_.breakpoints_.count(a.addr()) ||
      !s_->counting_stub_possible(a.addr()) || !s_->arm_counting_stub(a.addr(), n, t_.breakpoints_)) {
    return false;
  }
  const Traps user{t_.breakpoints_, {}, {}, t_.breakpoint_images_};
  uint64_t named = 0;  // the anchor's passes in cur_'s name so far
  for (;;) {
    ReplayStop r = s_->resume({.stop_after_event = true, .traps = user});
    uint64_t passes = s_->counting_stub_count();
    if (r.kind == ReplayStop::Kind::Interrupted && !r.event) {
      s_->disarm_counting_stub();
      BS_ASSERT(passes == n && s_->registers().ip() == a.addr(),
                "searching towards " << to_.describe() << ": the counting stub stopped after " << passes << " of "
                                     << n << " passes through 0x" << std::hex << a.addr());
      leg_done(a, n);
      return true;
    }
    BS_ASSERT(r.kind == ReplayStop::Kind::Breakpoint && !r.event,
              "searching towards " << to_.describe() << ": unexpected stop at " << cur_.describe() << " (kind "
                                   << static_cast<int>(r.kind) << ")");
    // Named as the int3 walk names it: the anchor's passes since the last
    // hit of the user's, then that hit.
    if (passes > named) {
      cur_ = cur_.after_trap(a);
      cur_.anchors.back().count += passes - named - 1;
      named = passes;
    }
    cur_ = cur_.after_trap(ReplayTimeline::trap_of(r, {}));
    consider(r);
  }
}

}  // namespace backstep
