// Running backwards. A reverse-continue restores a checkpoint before the
// current position and replays forward with the user's breakpoints and
// watchpoints armed, remembering the last hit before "now"; if there is none
// it tries the stretch before that checkpoint, and so on back to the start.
// A reverse-stepi finds the instruction before "now" the same way, one
// instruction at a time.
#include <algorithm>

#include "engine/core/log.h"
#include "engine/core/signals.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {
namespace {

// Beyond this many single-steps between two traps a reverse-stepi gives up
// (about 20 s here) rather than appear to hang.
constexpr uint64_t kMaxStepsBack = 1'000'000;
// While counting the instructions before a trap, fork a checkpoint every so
// many steps, so that the reverse-stepis that follow start close by.
constexpr uint64_t kStepsPerCheckpoint = 256;

Anchor trap_of(const ReplayStop& r, const std::vector<Watchpoint>& watches) {
  Anchor a;
  a.watch.addr = r.address;
  if (r.kind == ReplayStop::Kind::Watchpoint) {
    a.kind = Anchor::Kind::Watchpoint;
    for (const Watchpoint& w : watches) {
      if (w.addr == r.address) a.watch = w;
    }
  }
  return a;
}

}  // namespace

const trace::Event& ReplayTimeline::event_at(uint64_t number) {
  if (!looked_up_ || looked_up_->first != number) {
    lookup_->seek(number);
    std::optional<trace::Event> e = lookup_->next();
    BS_ASSERT(e, "event " << number << " is not in the trace");
    looked_up_.emplace(number, std::move(*e));
  }
  return looked_up_->second;
}

std::optional<ReplayTimeline::Candidate> ReplayTimeline::last_hit_between(
    const Checkpoint& from, const Mark& to, const std::function<bool()>& interrupted, bool& was_interrupted) {
  std::unique_ptr<ReplaySession> s = from.session->clone();
  s->set_echo(false);
  Mark cur = from.mark;
  std::optional<Candidate> last;
  auto consider = [&](const ReplayStop& r) {
    if (auto stop = user_trap(r, *s)) last = Candidate{cur, *stop};
  };

  // Up to the event boundary of `to`, every user trap is a candidate.
  arm_user_traps(*s);
  while (s->next_event() < to.event) {
    if (interrupted && interrupted()) {
      was_interrupted = true;
      return std::nullopt;
    }
    ReplayStop r = s->resume({.single_step = false, .stop_after_event = true});
    switch (r.kind) {
      case ReplayStop::Kind::EventReplayed:
        cur = Mark{s->next_event(), {}, 0};
        if (cur == to) return last;
        consider(r);
        break;
      case ReplayStop::Kind::Watchpoint:
        // A write is undone first when going back: a watch hit reported
        // right after it (even at `to` itself) counts as before `to`.
        if (r.by_kernel) {
          cur = Mark{s->next_event(), {}, 0};
          consider(r);
          if (cur == to) return last;
        } else {
          cur = cur.after_trap(trap_of(r, watchpoints_));
          consider(r);
        }
        break;
      case ReplayStop::Kind::Breakpoint:
        cur = cur.after_trap(trap_of(r, watchpoints_));
        consider(r);
        break;
      case ReplayStop::Kind::Step:
        break;
      case ReplayStop::Kind::ProgramEnd:
      case ReplayStop::Kind::TraceEnd:
        return last;
    }
  }

  // Along `to`'s anchors, with the user's traps armed too.
  Mark prefix{to.event, {}, 0};
  for (std::size_t i = 0; i < to.anchors.size(); ++i) {
    const Anchor& a = to.anchors[i];
    std::set<uint64_t> bps = breakpoints_;
    std::vector<Watchpoint> watches = watchpoints_;
    if (a.kind == Anchor::Kind::Breakpoint) {
      bps.insert(a.addr());
    } else if (std::find(watches.begin(), watches.end(), a.watch) == watches.end()) {
      watches.push_back(a.watch);
    }
    s->set_breakpoints(bps);
    s->set_watchpoints(watches);
    for (uint64_t hits = 0; hits < a.count;) {
      ReplayStop r = s->resume({.single_step = false, .stop_after_event = true});
      BS_ASSERT(!r.event && (r.kind == ReplayStop::Kind::Breakpoint || r.kind == ReplayStop::Kind::Watchpoint),
                "searching towards " << to.describe() << ": unexpected stop at " << cur.describe());
      Anchor t = trap_of(r, watches);
      cur = cur.after_trap(t);
      if (t.same_trap(a) || (t.kind == a.kind && t.addr() == a.addr())) {
        if (++hits == a.count) {
          prefix.anchors.push_back(a);
          cur = prefix;
          if (i + 1 == to.anchors.size() && to.steps == 0) {  // reached `to`
            if (r.kind == ReplayStop::Kind::Watchpoint) consider(r);
            return last;
          }
        }
      }
      consider(r);
    }
  }

  // The final single-steps: a breakpoint address reached is a hit.
  s->set_breakpoints({});
  s->set_watchpoints(watchpoints_);
  for (uint64_t n = 1; n <= to.steps; ++n) {
    ReplayStop r = s->resume({.single_step = true, .stop_after_event = false});
    cur = prefix;
    cur.steps = n;
    if (r.kind == ReplayStop::Kind::Watchpoint) {
      consider(r);
    } else if (n == to.steps) {
      break;
    } else if (uint64_t pc = s->registers().ip(); breakpoints_.count(pc)) {
      last = Candidate{cur, make_stop(TargetStop::Kind::Breakpoint, pc)};
    }
  }
  return last;
}

TargetStop ReplayTimeline::continue_backward(const std::function<bool()>& interrupted) {
  Mark end = mark_;
  for (;;) {
    const Checkpoint* cp = best_checkpoint(end, false, true);
    if (!cp) {
      seek(checkpoints_.front().mark);
      return make_stop(TargetStop::Kind::HistoryStart);
    }
    bool was_interrupted = false;
    std::optional<Candidate> hit = last_hit_between(*cp, end, interrupted, was_interrupted);
    if (was_interrupted) return make_stop(TargetStop::Kind::Interrupted);
    if (hit) {
      seek(hit->mark);
      if (hit->stop.kind == TargetStop::Kind::Watchpoint) {
        // Going backwards, stop before the instruction (or syscall) that
        // wrote, as gdb expects.
        if (std::optional<Mark> before = mark_before(mark_)) seek(*before);
      }
      return hit->stop;
    }
    end = cp->mark;
  }
}

TargetStop ReplayTimeline::step_backward() {
  std::optional<Mark> before = mark_before(mark_);
  if (!before) return make_stop(TargetStop::Kind::HistoryStart);
  seek(*before);
  return make_stop(TargetStop::Kind::Step);
}

std::optional<Mark> ReplayTimeline::mark_before(const Mark& at) {
  if (at.steps > 0) {
    Mark m = at;
    --m.steps;
    return m;
  }
  if (!at.anchors.empty()) {
    // The instruction before the last trap: count the steps from the trap
    // before it, dropping checkpoints on the way for the steps back to come.
    Mark p = at;
    if (--p.anchors.back().count == 0) p.anchors.pop_back();
    const Anchor& a = at.anchors.back();
    seek(p);
    current_->set_breakpoints({});
    current_->set_watchpoints(a.kind == Anchor::Kind::Watchpoint ? std::vector<Watchpoint>{a.watch}
                                                                 : std::vector<Watchpoint>{});
    Mark cur = p;
    for (;;) {
      if (cur.steps % kStepsPerCheckpoint == 0) {
        const Checkpoint* near = best_checkpoint(cur, true, false);
        if (!near || near->mark != cur) add_checkpoint(next_auto_checkpoint_--, cur, *current_);
      }
      ReplayStop r = current_->resume({.single_step = true, .stop_after_event = false});
      BS_ASSERT(!r.event, "stepping towards " << at.describe() << " replayed an event");
      cur = cur.after_step();
      mark_ = cur;
      bool reached = a.kind == Anchor::Kind::Breakpoint ? current_->registers().ip() == a.addr()
                                                        : r.kind == ReplayStop::Kind::Watchpoint;
      if (reached) break;
      if (cur.steps > kMaxStepsBack) {
        throw std::runtime_error("the previous instruction is more than " + std::to_string(kMaxStepsBack) +
                                 " instructions from the last known position; not searching further");
      }
    }
    thin_checkpoints();
    // `cur` is `at` by another name: take the canonical one.
    mark_ = at;
    Mark target = p;
    target.steps = cur.steps - 1;
    return target;
  }
  // At an event boundary: the instruction before is the one that caused the
  // previous event (a syscall, rdtsc or faulting instruction).
  if (at.event <= checkpoints_.front().mark.event) return std::nullopt;
  uint64_t e = at.event - 1;
  const trace::Event& prev = event_at(e);
  Registers regs = Registers::from_block(*prev.regs);
  uint64_t insn = 0;
  switch (prev.kind) {
    case trace::EventKind::Syscall: insn = regs.ip() - 2; break;
    case trace::EventKind::Rdtsc: insn = regs.ip(); break;
    case trace::EventKind::Signal:
    case trace::EventKind::FatalSignal:
      if (!is_synchronous_fault(siginfo_from_bytes(prev.siginfo))) {
        return mark_before(Mark{e, {}, 0});  // a delivery is not an instruction
      }
      insn = regs.ip();
      break;
    default:
      return std::nullopt;
  }
  Mark boundary{e, {}, 0};
  seek(boundary);
  if (current_->registers().ip() == insn) return boundary;
  Anchor a;
  a.watch.addr = insn;
  return boundary.after_trap(a);
}

}  // namespace backstep
