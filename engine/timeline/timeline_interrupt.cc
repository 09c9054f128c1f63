// The client's interrupt (gdb's ^C) during a `continue` through user code
// that makes no system call, and the State anchors that name where it
// stopped the program.
//
// The replay stops the program wherever it is (engine/replay/
// replay_interrupt.cc). No trap counted the way there, and it may be
// millions of passes round a loop from the last known position (an event,
// a breakpoint's hit): the position is named by the running thread's state
// instead, as the recorder names a Position event: its registers and a
// digest of the program's memory, "the first moment after the last known
// position with exactly this state". Equal state means an equal future, so
// going there again and running on shows what the interrupted run showed.
//
// Going there again must not mean running the loop with a trap per pass:
// a checkpoint is left at the State anchor and kept (holds_state), and
// reverse-continue crosses the anchor by running, from a copy at the anchor,
// to the user's first trap hit after it, and from the leg before, to the hit
// in that hit's state (timeline_search.cc): both at the program's own speed
// between the user's traps. Only when the checkpoint is gone, or to go back
// before the anchor's own moment (reverse-stepi there), is the loop run
// with a breakpoint at the anchor's pc, registers compared at each pass and
// the digest where they match, within limits that end in a clear error.
//
// So that reverse-stepi right after the interrupt has some history without
// that search, the program is stepped on from the anchor, at least
// kHistoryAfterInterrupt instructions and then until it is back at the same
// pc (a few passes round a short loop; at most kStepsAfterInterrupt), and
// the interrupt is reported there.
#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "values/log.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {
namespace {

// Instructions stepped after the anchor before the stop is reported: at
// least kHistoryAfterInterrupt (a few passes round a short loop for
// reverse-stepi and reverse-next to go back over), then on to the anchor's
// pc, at most kStepsAfterInterrupt in all.
constexpr uint64_t kHistoryAfterInterrupt = 256;
constexpr uint64_t kStepsAfterInterrupt = 2048;
// Checkpoints kept at State anchors; beyond this the oldest goes (its
// anchor is then found again by searching).
constexpr std::size_t kMaxStateCheckpoints = 8;
// The search for a State anchor gives up after kMaxStatePasses passes
// through its pc (replay_timeline.h; 2 to 10 s here), or this many digests
// (registers equal at each pass: a loop that keeps its counter in memory).
constexpr uint64_t kMaxStateDigests = 2'000;
// The passes a reverse-stepi searches for a position the recording chose
// (an int3 stop each, 30-300 us here): where the signal came after more,
// it says there is no earlier history instead of searching for seconds.
constexpr uint64_t kMaxPositionPasses = 10'000;

bool always(const trace::Event&) { return true; }

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

}  // namespace

TargetStop ReplayTimeline::stop_at_interrupt() {
  current_->set_echo(false);
  BS_ASSERT(!mark_.at_event, "interrupted at " << mark_.describe() << ", where nothing runs");
  Anchor a;
  a.kind = Anchor::Kind::State;
  a.state = state_here(*current_);
  a.watch.addr = Registers::from_block(a.state.regs).ip();
  mark_ = mark_.after_trap(a);
  end_reported_ = false;
  add_state_checkpoint(mark_, *current_);
  BS_LOG(Replay, "interrupted at " << mark_.describe());

  for (uint64_t n = 0; n < kStepsAfterInterrupt; ++n) {
    TargetStop stop = step_once();
    if (stop.kind != TargetStop::Kind::Step) return stop;  // a watchpoint fired, or the end
    if (mark_.at_boundary()) break;                         // the step replayed an event
    uint64_t pc = current_->registers().ip();
    if ((pc == a.addr() && n + 1 >= kHistoryAfterInterrupt) || breakpoints_.count(pc)) break;
  }
  return make_stop(TargetStop::Kind::Interrupted);
}

int ReplayTimeline::add_state_checkpoint(const Mark& at, ReplaySession& session) {
  int id = checkpoints_.add(CheckpointStore::Kind::AtState, at, fork_of(session));
  checkpoints_.cap_states(kMaxStateCheckpoints);
  return id;
}

uint64_t ReplayTimeline::run_to_state(ReplaySession& session, const Anchor& state, const Mark& to,
                                      uint64_t max_passes) {
  const Traps at_state_pc{{state.addr()}, {}};
  uint64_t passes = 0, digests = 0;
  auto give_up = [&](const std::string& why) {
    throw std::runtime_error("cannot find the place where the program was interrupted (" + to.describe() +
                             ") again: " + why);
  };
  for (;;) {
    ReplayStop r = session.resume({.stop_after_event = true, .stop_before = always, .traps = at_state_pc});
    if (r.kind != ReplayStop::Kind::Breakpoint || r.event) {
      give_up("the program reached event " + std::to_string(session.next_event()) + " first");
    }
    ++passes;
    if (in_state(session, state.state, &digests)) break;
    if (digests >= kMaxStateDigests) {
      give_up("its registers recur at " + hex(state.addr()) + " on every pass, and " + std::to_string(digests) +
              " passes did not match its memory; not searching further");
    }
    if (passes >= max_passes) {
      give_up("it is more than " + std::to_string(passes) + " passes through " + hex(state.addr()) +
              " from the last known position; not searching further");
    }
  }
  BS_LOG(Replay, "state at " << hex(state.addr()) << " found after " << passes << " passes");
  return passes;
}

Mark ReplayTimeline::reach_state_from(Mark from, const Anchor& state, const Mark& to, uint64_t max_passes) {
  seek(from);
  // On a copy: if the search gives up, the timeline stays at `from`.
  std::unique_ptr<ReplaySession> search = current_->clone();
  search->set_echo(false);
  uint64_t passes = run_to_state(*search, state, to, max_passes);
  current_ = std::move(search);
  Anchor bp;
  bp.watch.addr = state.addr();
  Mark named = from.after_trap(bp);
  named.anchors.back().count += passes - 1;
  mark_ = named;
  return named;
}

std::optional<Mark> ReplayTimeline::mark_before_state(const Mark& at_ref) {
  const Mark at = at_ref;  // it may be mark_, which seek() changes
  // Name the same moment by its passes through the state's pc since the
  // anchor before (an ordinary breakpoint anchor), and go back from that.
  Mark p = at;
  Anchor state = p.anchors.back();
  p.anchors.pop_back();
  p.steps = state.steps_before;
  Mark named;
  try {
    named = reach_state_from(p, state, at, kMaxStatePasses);
  } catch (const std::exception&) {
    seek(at);  // back where the user was (a checkpoint holds it)
    throw;
  }
  return search_mark_before(named);
}

std::optional<Mark> ReplayTimeline::mark_before_position(uint64_t e, const trace::Event& position) {
  // Counted: its arrivals are the position stub's to count, and a walk by
  // int3 stops over millions of them would take minutes.
  if (!position.position || position.position->counted() || !position.regs) return std::nullopt;
  const Mark was = mark_;
  const Mark boundary{e, {}, 0};
  const Registers regs = without_trap_flags(Registers::from_block(*position.regs));
  Anchor state;
  state.kind = Anchor::Kind::State;
  state.state.regs = regs.to_block();
  state.state.digest = position.position->digest;
  state.watch.addr = regs.ip();
  Mark named;
  try {
    named = reach_state_from(boundary, state, boundary.after_trap(state), kMaxPositionPasses);
  } catch (const std::exception& err) {
    // A loop that changes something at every pass (a counter), too many
    // passes from the boundary: not searched further.
    BS_LOG(Replay, "the instruction before the position at event " << e << " is not searched for: " << err.what());
    seek(was);
    return std::nullopt;
  }
  return search_mark_before(named);
}

std::optional<StateKey> ReplayTimeline::first_hit_state(ReplaySession& session) {
  for (;;) {
    ReplayStop r = session.resume({.stop_after_event = true, .stop_before = always, .traps = user_traps()});
    if (r.event || (r.kind != ReplayStop::Kind::Breakpoint && r.kind != ReplayStop::Kind::Watchpoint)) {
      return std::nullopt;
    }
    if (user_trap(r, session)) return state_here(session);
  }
}

std::vector<Candidate> ReplayTimeline::hits_to_event(ReplaySession& session, const Mark& from,
                                                     const std::optional<StateKey>& until, bool* missed) {
  Mark cur = from;
  std::vector<Candidate> out;
  for (;;) {
    ReplayStop r = session.resume({.stop_after_event = true, .stop_before = always, .traps = user_traps()});
    if (r.event || (r.kind != ReplayStop::Kind::Breakpoint && r.kind != ReplayStop::Kind::Watchpoint)) {
      // Seen from later, a hit that this run did not come to: the caller
      // says what then.
      if (until) {
        BS_ASSERT(missed, "from " << from.describe() << ", the next event came before a trap hit seen from later");
        *missed = true;
      }
      return out;
    }
    std::optional<TargetStop> stop = user_trap(r, session);
    if (stop && until && in_state(session, *until)) return out;
    cur = cur.after_trap(trap_of(r, watchpoints_));
    if (stop) out.push_back({cur, *stop});
  }
}

std::vector<Candidate> ReplayTimeline::hits_to_state(ReplaySession& session, const Mark& from, const Anchor& state) {
  Traps traps = user_traps();
  const bool users = traps.breakpoints.count(state.addr()) != 0;
  traps.breakpoints.insert(state.addr());
  traps.images.erase(state.addr());  // the state's pc is where the program is
  Mark cur = from;
  std::vector<Candidate> out;
  for (;;) {
    ReplayStop r = session.resume({.stop_after_event = true, .stop_before = always, .traps = traps});
    if (r.event || (r.kind != ReplayStop::Kind::Breakpoint && r.kind != ReplayStop::Kind::Watchpoint)) return out;
    const bool at_pc = r.kind == ReplayStop::Kind::Breakpoint && r.address == state.addr();
    // The anchor's moment itself: a hit there is the position, not before it.
    if (at_pc && in_state(session, state.state)) return out;
    if (at_pc && !users) continue;  // a pass through the state's pc only
    std::optional<TargetStop> stop = user_trap(r, session);
    cur = cur.after_trap(trap_of(r, watchpoints_));
    if (stop) out.push_back({cur, *stop});
  }
}

std::unique_ptr<ReplaySession> ReplayTimeline::session_at(const Mark& target) {
  const Checkpoint* cp = checkpoints_.best_before(target, Bound::Inclusive);
  BS_ASSERT(cp, "no checkpoint on the way to " << target.describe());
  std::unique_ptr<ReplaySession> s = cp->session->clone();
  s->set_echo(false);
  if (cp->mark != target) walk(*s, cp->mark, target);
  return s;
}

}  // namespace backstep
