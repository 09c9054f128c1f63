// Running backwards. A reverse-continue restores a checkpoint before the
// current position and replays forward with the user's breakpoints and
// watchpoints armed, remembering the last hit before "now" (a
// BackwardSearch, backward_search.h); if there is none it tries the stretch
// before that checkpoint, and so on back to the start.
// A reverse-stepi finds the instruction before "now" the same way, one
// instruction at a time.
#include <algorithm>
#include <deque>
#include <stdexcept>
#include <tuple>

#include "values/log.h"
#include "engine/core/signals.h"
#include "engine/timeline/backward_search.h"
#include "engine/timeline/replay_timeline.h"
#include "engine/timeline/timeline_approach.h"

namespace backstep {
namespace {

// Beyond this many single-steps between two traps a reverse-stepi gives up
// (about 20 s here) rather than appear to hang.
constexpr uint64_t kMaxStepsBack = 1'000'000;

// While counting the instructions before a trap, fork a checkpoint every so
// many steps, so that the reverse-stepis that follow start close by.
constexpr uint64_t kStepsPerCheckpoint = 256;
// A reverse-stepi before a breakpoint's hit steps this far from the trap
// before; beyond, it approaches the hit at the program's speed first
// (timeline_approach.cc), at most so many times.
constexpr uint64_t kStepsBeforeApproach = 128;
constexpr int kMaxApproachRounds = 64;
// Going back over a loop's passes named by a breakpoint's hits (gdb at each
// false hit of a conditional breakpoint), the steps of up to this many
// passes (and about this many steps) are cached at once, so that one seek
// serves many passes.
constexpr uint64_t kMaxBatchPasses = 256;
constexpr uint64_t kBatchSteps = 4096;

bool always(const trace::Event&) { return true; }

uint64_t steps_or_give_up(std::optional<uint64_t> n) {
  if (n) return *n;
  throw std::runtime_error("the previous instruction is more than " + std::to_string(kMaxStepsBack) +
                           " instructions from the last known position; not searching further");
}

}  // namespace

Anchor ReplayTimeline::trap_of(const ReplayStop& r, const std::vector<Watchpoint>& watches) {
  Anchor a;
  a.watch.addr = r.address;
  if (r.kind == ReplayStop::Kind::Watchpoint) {
    a.kind = Anchor::Kind::Watchpoint;
    // The one of that kind: `watch` and `rwatch` may name the same address.
    const Watchpoint* found = nullptr;
    for (const Watchpoint& w : watches) {
      if (w.addr == r.address && (!found || w.kind == r.watch_kind)) found = &w;
    }
    if (found) a.watch = *found;
  }
  return a;
}

const trace::Event& ReplayTimeline::event_at(uint64_t number) {
  if (!looked_up_ || looked_up_->first != number) {
    lookup_->seek(number);
    std::optional<trace::Event> e = lookup_->next();
    BS_ASSERT(e, "event " << number << " is not in the trace");
    looked_up_.emplace(number, std::move(*e));
  }
  return looked_up_->second;
}

TrapConfig ReplayTimeline::trap_config() const {
  return TrapConfig{breakpoints_, hw_breakpoints_, watchpoints_, catch_syscalls_, pass_signals_};
}

std::optional<TargetStop> ReplayTimeline::continue_backward_listed() {
  // Stopped at a hit an earlier search listed (gdb resumes backwards after
  // each hit of a conditional breakpoint whose condition is false): the hit
  // before it is the listed one before, found without searching again.
  const Candidate* listed = hit_list_.take_before(trap_config(), position(), [this] { return registers(0).ip(); });
  if (!listed) return std::nullopt;
  const Candidate& hit = *listed;
  // gdb's step back off the hit after it counted the steps from this one
  // and cached them (it is where that count began): no seek.
  if (hit.stop.kind == TargetStop::Kind::Breakpoint && cached_landing(hit.mark, hit.stop.tid)) {
    set_logical(hit.mark);
    return hit.stop;
  }
  lazy_.reset();  // the seek goes from a checkpoint, not from here
  return land_backward(hit);
}

TargetStop ReplayTimeline::continue_backward(const std::function<bool()>& interrupted) {
  // (run() has tried continue_backward_listed() first.)
  Mark end = mark_;
  for (;;) {
    const Checkpoint* cp = checkpoints_.best_before(end, Bound::Exclusive, Where::AtBoundary);
    if (!cp) {
      seek(checkpoints_.front().mark);
      return make_stop(TargetStop::Kind::HistoryStart);
    }
    // After the first search, `end` is the checkpoint that search started
    // from: a stop right there was not seen by it (the session started
    // past the trap or event that leads there).
    std::deque<Candidate> listed;
    BackwardSearch::End included = end != mark_ ? BackwardSearch::End::Included : BackwardSearch::End::Excluded;
    BackwardSearch::Result found = BackwardSearch(*this, *cp, end, included, &listed).run(interrupted);
    if (found.interrupted) return make_stop(TargetStop::Kind::Interrupted);
    if (found.hit) {
      hit_list_.replace(trap_config(), std::move(listed));
      return land_backward(*found.hit);
    }
    end = cp->mark;
  }
}

const TrajectoryEntry* ReplayTimeline::cached_landing(const Mark& m, pid_t thread) const {
  // With watchpoints, a step back must run the instruction in a copy to see
  // whether it wrote: no cached landing.
  if (!watchpoints_.empty() || trajectory_use_ != TrajectoryUse::On) return nullptr;
  const TrajectoryEntry* e = trajectory_.find(m);
  if (!e || (thread != 0 && e->runs != thread)) return nullptr;
  return e;
}

TargetStop ReplayTimeline::land_backward(const Candidate& hit) {
  seek(hit.mark);
  if (hit.stop.kind == TargetStop::Kind::Watchpoint) {
    // Going backwards, stop before the instruction (or syscall) that
    // wrote, as gdb expects.
    if (std::optional<Mark> before = search_mark_before(mark_)) seek(*before);
  }
  return hit.stop;
}

std::optional<Mark> ReplayTimeline::delivery_before(const Mark& at, pid_t thread) {
  // A delivery is an event boundary's own: the handler's first instruction
  // (or the faulting one's handler) follows it at once, with only flushes
  // of buffered calls in between, which run nothing.
  if (!at.at_boundary()) return std::nullopt;
  for (uint64_t n = at.event; n-- > checkpoints_.front().mark.event;) {
    const trace::Event& e = event_at(n);
    if (e.kind == trace::EventKind::BufferFlush || e.kind == trace::EventKind::TraceeChange) continue;
    if (!stops_at_delivery(e) || (thread != 0 && e.tid != static_cast<uint32_t>(thread))) return std::nullopt;
    return Mark{n, {}, 0, true};
  }
  return std::nullopt;
}

TargetStop ReplayTimeline::step_backward(pid_t thread, Landing landing) {
  Mark from = mark_;
  if (std::optional<Mark> delivery = delivery_before(mark_, thread)) {
    // Stepping forward reported the signal before entering its handler:
    // stepping back reports it on the way out, at the same place.
    hit_list_.note_step_back(from, *delivery);
    seek(*delivery);
    return pending_stop(event_at(delivery->event));
  }
  std::optional<Mark> before = search_mark_before(mark_);
  if (!before) return make_stop(TargetStop::Kind::HistoryStart);
  uint32_t tid = static_cast<uint32_t>(thread);
  hit_list_.note_step_back(from, *before);
  if (landing == Landing::Lazy) {
    // Counting the steps to a trap cached them: no seek back needed.
    if (const TrajectoryEntry* e = cached_landing(*before, thread)) {
      set_logical(*before);
      TargetStop stop = make_stop(TargetStop::Kind::Step);
      stop.tid = e->runs;
      return stop;
    }
  }
  seek(*before);
  if (tid != 0 && current_->next_thread() != tid) {
    // The instruction before now is another thread's: `thread` ran none
    // since its last event, so its own previous instruction is there.
    // (At a forced position, the whole program's previous instruction.)
    hit_list_.forget_step_off();  // another thread's instruction
    std::optional<Mark> own = thread_instruction_before(tid, before->event, *before);
    if (!own) {
      seek(from);
      TargetStop stop = make_stop(TargetStop::Kind::HistoryStart);
      stop.tid = thread;
      return stop;
    }
    seek(*own);
    // The other threads ran between: a step forward from `own` would have
    // stopped at their breakpoints, watchpoints, caught calls and signals,
    // so the step back stops at the last of them, as reverse-continue
    // would (gdb without scheduler-locking).
    if (std::optional<Candidate> hit = others_stop_between(thread, *own, from)) return land_backward(*hit);
  }
  if (!watchpoints_.empty()) {
    // Stepping back over a write to a watched range reports the watchpoint,
    // as stepping forward over it does: run that one instruction (or call)
    // in a copy and see.
    std::unique_ptr<ReplaySession> probe = current_->clone();
    probe->set_echo(false);
    ReplayStop r = probe->resume({.single_step = true, .traps = watch_traps()});
    if (r.kind == ReplayStop::Kind::Watchpoint) {
      if (std::optional<TargetStop> stop = user_trap(r, *probe)) return *stop;
    }
  }
  // The thread whose instruction that was: the one that runs from here.
  TargetStop stop = make_stop(TargetStop::Kind::Step);
  stop.tid = static_cast<pid_t>(current_->next_thread());
  return stop;
}

std::optional<Candidate> ReplayTimeline::others_stop_between(pid_t thread, const Mark& own, const Mark& to) {
  // A search from a copy of the replay standing at `own` (no stored
  // checkpoint: a stop exactly there is the step's own landing, which the
  // search does not see).
  Checkpoint start{0, own, fork_of(*current_)()};
  std::deque<Candidate> all;
  BackwardSearch(*this, start, to, BackwardSearch::End::Excluded, &all).run(nullptr);
  // The stepping thread's own stops there are its call's (a caught entry
  // reached as it returns): the step forward over the call does not stop
  // at them either.
  for (auto c = all.rbegin(); c != all.rend(); ++c) {
    if (c->stop.tid != thread) return *c;
  }
  return std::nullopt;
}

std::optional<Mark> ReplayTimeline::thread_instruction_before(uint32_t tid, uint64_t limit, const Mark& otherwise) {
  uint64_t first = checkpoints_.front().mark.event;
  std::optional<uint64_t> returned;  // a Syscall of the thread's, seen later in the trace
  for (uint64_t n = limit; n-- > first;) {
    const trace::Event& e = event_at(n);
    if (e.tid != tid) continue;
    trace::EventKind kind = e.kind;
    bool fault = kind == trace::EventKind::Signal && is_synchronous_fault(siginfo_from_bytes(e.siginfo));
    if (returned) {
      // The thread's event before that return: its entry if the call blocked.
      return search_mark_before(Mark{kind == trace::EventKind::SyscallEntered ? n + 1 : *returned + 1, {}, 0});
    }
    switch (kind) {
      case trace::EventKind::Syscall: returned = n; continue;
      case trace::EventKind::SyscallEntered:
      case trace::EventKind::Rdtsc:
      case trace::EventKind::FatalSignal:
        return search_mark_before(Mark{n + 1, {}, 0});
      case trace::EventKind::Signal:
        if (fault) return search_mark_before(Mark{n + 1, {}, 0});
        continue;  // a delivery runs no instruction
      case trace::EventKind::ThreadStart:
        return std::nullopt;
      case trace::EventKind::BufferFlush:
      case trace::EventKind::TraceeChange:
        continue;  // records written back, a tracer's change: no instruction
      default:
        return otherwise;  // a forced position: not searched for
    }
  }
  if (returned) return search_mark_before(Mark{*returned + 1, {}, 0});
  return std::nullopt;
}

std::optional<uint64_t> ReplayTimeline::count_steps(const Mark& p,
                                                    const std::function<bool(const ReplayStop&)>& reached,
                                                    const ReplaySession::Resume& how, uint64_t limit) {
  seek(p);
  Mark cur = p;
  // Each position on the way is cached (timeline_lazy.cc): the reverse
  // steps that follow land there without a seek.
  if (trajectory_use_ == TrajectoryUse::On) trajectory_.begin(p, read_only_mappings());
  struct EndFill {
    Trajectory& t;
    ~EndFill() { if (t.filling()) t.end(); }
  } end_fill{trajectory_};
  for (;;) {
    record_position();
    if (cur.steps % kStepsPerCheckpoint == 0 && cur.steps != p.steps) {
      // Checkpoints along the way make the reverse-stepis that follow cheap.
      // Not at the start: the seek there just came from one, and the steps
      // are cached (a fork at every step off a conditional breakpoint's hit
      // cost a quarter of each false hit going back).
      if (!checkpoints_.has_at(cur)) add_automatic_checkpoint(cur, *current_);
    }
    ReplayStop r = current_->resume(how);
    cur = cur.after_step();
    mark_ = cur;
    if (reached(r)) break;
    BS_ASSERT(!r.event && r.kind == ReplayStop::Kind::Step,
              "stepping from " << p.describe() << ": left the interval after " << cur.steps - p.steps << " steps");
    if (cur.steps - p.steps >= limit) {
      checkpoints_.thin();
      return std::nullopt;
    }
  }
  checkpoints_.thin();
  return cur.steps - p.steps;
}

std::pair<Mark, uint64_t> ReplayTimeline::steps_to_trap(const Mark& p, uint64_t addr, uint32_t runs) {
  auto reached = [&](const ReplayStop&) { return current_->thread_registers(runs).ip() == addr; };
  const ReplaySession::Resume how{.single_step = true};
  Mark base = p;
  // First a few steps (most hits are close to what came before them); then
  // the approach (timeline_approach.cc), which declines a stretch short
  // enough to step whole; if stepping it still runs past the limit, the
  // approach again, forced, and stepping after that one gives up at the
  // limit.
  bool may_approach = true;
  bool last_try = !approach_available();
  for (int round = 0;; ++round) {
    uint64_t limit = may_approach ? kStepsBeforeApproach : kMaxStepsBack;
    // Where the forward continue to this hit left a copy on its way
    // (stretch_copy.h), the stretch is long: no steps first.
    bool long_stretch = round == 0 && mark_ == base && stretch_.has_copy_for(base, addr);
    if (!long_stretch) {
      if (std::optional<uint64_t> n = count_steps(base, reached, how, limit)) return {base, *n};
    }
    if (round == kMaxApproachRounds || (!may_approach && last_try)) steps_or_give_up(std::nullopt);
    TrapApproach::ShortStretch short_stretch =
        may_approach ? TrapApproach::ShortStretch::Decline : TrapApproach::ShortStretch::Approach;
    std::optional<Mark> closer = TrapApproach(*this, mark_, addr, runs, short_stretch).run();
    if (short_stretch == TrapApproach::ShortStretch::Approach) last_try = true;
    base = closer ? *closer : mark_;
    may_approach = closer.has_value();
  }
}

std::optional<Mark> ReplayTimeline::batched_before(const Mark& at) {
  if (trajectory_use_ != TrajectoryUse::On || at.steps != 0 || at.at_event || at.anchors.empty()) return std::nullopt;
  const Anchor& a = at.anchors.back();
  auto known = approach_.pass_steps.find(a.addr());
  if (a.kind != Anchor::Kind::Breakpoint || a.count < 3 || known == approach_.pass_steps.end()) return std::nullopt;
  uint64_t batch = std::min<uint64_t>({a.count - 1, kMaxBatchPasses,
                                       std::max<uint64_t>(1, kBatchSteps / std::max<uint64_t>(1, known->second))});
  if (batch < 2) return std::nullopt;
  BS_LOG(Replay, "batch: " << batch << " passes of " << known->second << " steps before " << at.describe());
  Mark base = at;  // the pass whose steps are being cached: "A xj"
  base.anchors.back().count -= batch;
  seek(base);
  uint32_t runs = current_->next_thread();
  std::vector<std::pair<uint64_t, uint64_t>> read_only = read_only_mappings();
  struct EndFill {
    Trajectory& t;
    ~EndFill() { if (t.filling()) t.end(); }
  } end_fill{trajectory_};
  trajectory_.begin(base, read_only);
  uint64_t steps = 0;  // since `base`
  for (uint64_t passes = 0;;) {
    record_position();
    ReplayStop r = current_->resume({.single_step = true});
    ++steps;
    // Named by the steps from the pass's start until the end: the pc on
    // the breakpoint here counts as not hit yet (as count_steps leaves it).
    mark_ = base;
    mark_.steps = steps;
    BS_ASSERT(!r.event && r.kind == ReplayStop::Kind::Step,
              "caching the passes before " << at.describe() << ": left the interval at " << mark_.describe());
    if (current_->thread_registers(runs).ip() != a.addr()) {
      if (steps > kMaxStepsBack) steps_or_give_up(std::nullopt);
      continue;
    }
    // The next hit: this pass is cached whole.
    trajectory_.end(true);
    approach_.pass_steps[a.addr()] = steps;
    if (++passes == batch) {
      checkpoints_.thin();
      Mark before = base;
      before.steps = steps - 1;
      return before;
    }
    ++base.anchors.back().count;
    steps = 0;
    trajectory_.begin(base, read_only);
  }
}

std::optional<Mark> ReplayTimeline::search_mark_before(const Mark& at) {
  if (at.at_event) {
    // Before the instruction that raised the event (a fault may have run
    // before without faulting): count the steps from the boundary.
    const trace::Event& e = event_at(at.event);
    bool signal = trace::kind_traits(e.kind).delivers_signal;
    // A call through the vsyscall page is reached at the page's address,
    // like a fault: the instruction before is the one that called it.
    bool fault = (signal && is_synchronous_fault(siginfo_from_bytes(e.siginfo))) || is_vsyscall_event(e);
    Mark p{at.event, {}, 0};
    if (signal && !fault) return search_mark_before(p);
    uint64_t n = steps_or_give_up(count_steps(
        p, [](const ReplayStop& r) { return r.kind == ReplayStop::Kind::EventPending; },
        {.single_step = true, .stop_before = always}, kMaxStepsBack));
    mark_ = at;
    // A system call has run its instruction when it is reached (the pc is
    // past it): the instruction before is the call. A faulting instruction
    // has not run: reaching the fault changed nothing, so the instruction
    // before is the one before the faulting one.
    uint64_t ran = fault ? n - 1 : n;
    if (ran == 0) return search_mark_before(p);
    p.steps = ran - 1;
    return p;
  }
  if (at.steps > 0) {
    Mark m = at;
    --m.steps;
    return m;
  }
  if (!at.anchors.empty() && at.anchors.back().kind == Anchor::Kind::State) return mark_before_state(at);
  if (!at.anchors.empty()) {
    // The instruction before the last trap: count the steps from the trap
    // (or steps) before it.
    Mark p = at;
    Anchor& last = p.anchors.back();
    if (--last.count == 0) {
      p.steps = last.steps_before;
      p.anchors.pop_back();
    }
    const Anchor a = at.anchors.back();
    // A loop's passes named by one breakpoint's hits: the steps of many
    // passes back cached in one go, when a pass is known to be short.
    if (std::optional<Mark> before = batched_before(at)) return before;
    seek(p);
    bool same_trap_before = p.steps == 0 && !p.anchors.empty() && p.anchors.back().same_trap(a);
    // Traps belong to the thread that runs in this interval.
    uint32_t runs = current_->next_thread();
    if (a.kind == Anchor::Kind::Breakpoint && !same_trap_before && current_->thread_registers(runs).ip() == a.addr()) {
      // The breakpoint was hit at once from `p` (reached by an event, a
      // step or a watchpoint, with the pc on it): no instruction ran.
      return search_mark_before(p);
    }
    uint64_t n = 0;
    if (a.kind == Anchor::Kind::Watchpoint) {
      n = steps_or_give_up(count_steps(
          p, [](const ReplayStop& r) { return r.kind == ReplayStop::Kind::Watchpoint; },
          {.single_step = true, .traps = Traps{{}, {a.watch}}}, kMaxStepsBack));
    } else {
      // Counted from `p`, or from a later position closer to the hit
      // (timeline_approach.cc).
      Mark from = p;
      std::tie(p, n) = steps_to_trap(p, a.addr(), runs);
      if (same_trap_before && p == from) approach_.pass_steps[a.addr()] = n;
    }
    // mark_ stays the name count_steps gave: it is the same instruction as
    // `at`, but a breakpoint there counts as not hit yet.
    p.steps += n - 1;
    return p;
  }
  // At an event boundary: the instruction before is the one that caused the
  // previous event.
  if (at.event <= checkpoints_.front().mark.event) return std::nullopt;
  uint64_t e = at.event - 1;
  const trace::Event& prev = event_at(e);
  uint32_t tid = prev.tid;
  Mark boundary{e, {}, 0};
  uint64_t insn = 0;
  switch (prev.kind) {
    case trace::EventKind::Syscall: {
      // A call through the vsyscall page: the moment before is where it was
      // reached, at the page's address.
      if (is_vsyscall_event(prev)) return Mark{e, {}, 0, true};
      insn = Registers::from_block(*prev.regs).ip() - 2;
      // A blocking call's return, after other threads ran: its instruction
      // ran at its SyscallEntered event, and none runs here.
      seek(boundary);
      if (current_->thread_in_call(tid)) return search_mark_before(boundary);
      break;
    }
    case trace::EventKind::SyscallEntered: insn = Registers::from_block(*prev.regs).ip() - 2; break;
    case trace::EventKind::ThreadStart:
    case trace::EventKind::ThreadExit:
    case trace::EventKind::BufferFlush:
    case trace::EventKind::TraceeChange:
      return search_mark_before(boundary);  // no instruction of the program's
    case trace::EventKind::Position:
      // Not an instruction either: the one before the thread's arrival
      // there (a hand-over between threads, a signal delivered in a loop).
      return mark_before_position(e, prev);
    case trace::EventKind::Rdtsc: insn = Registers::from_block(*prev.regs).ip(); break;
    case trace::EventKind::Signal:
      if (!is_synchronous_fault(siginfo_from_bytes(prev.siginfo))) {
        return search_mark_before(Mark{e, {}, 0});  // a delivery is not an instruction
      }
      return Mark{e, {}, 0, true};  // at the faulting instruction, before the handler
    case trace::EventKind::FatalSignal:
      // Nothing changed at the fault: the instruction before it.
      return search_mark_before(Mark{e, {}, 0, true});
    default:
      return std::nullopt;
  }
  // A syscall or rdtsc instruction runs once per event: it is the first hit
  // of its address after the previous boundary (or the boundary itself).
  seek(boundary);
  // The instruction is the event's thread's (another may have run last).
  if (current_->thread_registers(tid).ip() == insn) return boundary;
  Anchor a;
  a.watch.addr = insn;
  return boundary.after_trap(a);
}

}  // namespace backstep
