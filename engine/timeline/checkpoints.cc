// Seeking: reaching any mark from the nearest checkpoint on its way (the
// checkpoints themselves are kept by CheckpointStore, checkpoint_store.h),
// and the user's own checkpoints.

#include "values/log.h"
#include "engine/timeline/checkpoint_policy.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {

using namespace checkpoint_policy;

void ReplayTimeline::seek(const Mark& target) {
  if (mark_ == target) return;
  std::unique_ptr<ReplaySession> session;
  Mark from;
  if (mark_.is_prefix_of(target, false)) {
    // Forward from here, unless a checkpoint is closer.
    const Checkpoint* cp = checkpoints_.best_before(target, Bound::Inclusive);
    if (cp && mark_.is_prefix_of(cp->mark, false)) {
      session = cp->session->clone();
      from = cp->mark;
    }
  } else {
    const Checkpoint* cp = checkpoints_.best_before(target, Bound::Inclusive);
    BS_ASSERT(cp, "no checkpoint on the way to " << target.describe());
    session = cp->session->clone();
    from = cp->mark;
  }
  if (session) {
    current_ = std::move(session);
    mark_ = from;
  }
  // The checkpoint this walk starts from stays while the walk leaves others:
  // the next search back from here most likely starts there again.
  std::optional<Mark> pinned_before = checkpoints_.pinned();
  if (session) checkpoints_.pin(from);
  try {
    walk(*current_, mark_, target);
    checkpoints_.pin(pinned_before);
  } catch (const std::exception&) {
    checkpoints_.pin(pinned_before);
    // Stopped part-way (a State anchor no checkpoint holds was not found
    // again): the replay is somewhere mark_ does not name. Go to the
    // nearest checkpoint on the way, a position known exactly, and report.
    const Checkpoint* cp = checkpoints_.best_before(target, Bound::Inclusive);
    current_ = cp->session->clone();
    mark_ = cp->mark;
    throw;
  }
  mark_ = target;
  checkpoints_.thin();
}

void ReplayTimeline::walk(ReplaySession& session, const Mark& from, const Mark& to) {
  session.set_echo(false);
  while (session.next_event() < to.event) {
    ReplayStop s = session.resume({.single_step = false, .stop_after_event = true, .stop_before = {}});
    BS_ASSERT(s.kind == ReplayStop::Kind::EventReplayed,
              "walking to " << to.describe() << ": stopped early at event " << session.next_event());
  }
  if (to.at_event) {
    ReplayStop s = session.resume(
        {.single_step = false, .stop_after_event = true, .stop_before = [](const trace::Event&) { return true; }});
    BS_ASSERT(s.kind == ReplayStop::Kind::EventPending, "walking to " << to.describe() << ": event not reached");
    return;
  }
  // The legs of `to` still ahead: `from` may be part-way along them.
  std::vector<Move> legs = to.moves();
  std::size_t i = 0;
  uint64_t done = 0;
  if (from.event == to.event) {
    std::vector<Move> behind = from.moves();
    if (!behind.empty()) {
      i = behind.size() - 1;
      done = behind.back().n;
      if (done == legs[i].n) {
        ++i;
        done = 0;
      }
    }
  }
  // The position after legs[0..i) and `n` of leg i.
  auto position = [&](std::size_t leg_index, uint64_t n) {
    Mark m{to.event, {}, 0};
    for (std::size_t j = 0; j <= leg_index; ++j) {
      uint64_t count = j == leg_index ? n : legs[j].n;
      if (!legs[j].is_trap) {
        m.steps += count;
      } else if (count > 0) {
        Anchor a = legs[j].trap;
        a.count = count;
        a.steps_before = m.steps;
        m.anchors.push_back(a);
        m.steps = 0;
      }
    }
    return m;
  };
  bool leave_checkpoints = &session == current_.get();
  // A checkpoint after `n` of leg `leg_index` (not at the leg's end), unless
  // one is there already.
  auto leave_checkpoint = [&](std::size_t leg_index, uint64_t n) {
    if (!leave_checkpoints || n == legs[leg_index].n) return;
    Mark here = position(leg_index, n);
    if (!checkpoints_.has_at(here)) add_automatic_checkpoint(here, session);
  };
  auto maybe_checkpoint = [&](std::size_t leg_index, uint64_t n, uint64_t every) {
    if (n % every == 0) leave_checkpoint(leg_index, n);
  };
  for (; i < legs.size(); ++i, done = 0) {
    const Move& leg = legs[i];
    if (!leg.is_trap) {
      for (uint64_t n = done; n < leg.n; ++n) {
        ReplayStop s = session.resume({.single_step = true});
        BS_ASSERT(s.kind == ReplayStop::Kind::Step && !s.event,
                  "walking to " << to.describe() << ": step " << n << " left the interval");
        maybe_checkpoint(i, n + 1, kStepsPerWalkCheckpoint);
      }
      continue;
    }
    const Anchor& a = leg.trap;
    if (a.kind == Anchor::Kind::State) {
      // Normally a checkpoint holds it (the walk starts there or after).
      // Found with a breakpoint at its pc, the thread stands there as the
      // checkpoint's copy did, taken at a clock's stop: the pass it stands
      // on is counted by the legs that follow (a breakpoint or a counting
      // stub there fires at once), not passed over as a reported hit.
      if (done == 0) {
        run_to_state(session, a, to);
        session.forget_breakpoint_report();
      }
      continue;
    }
    if (a.kind == Anchor::Kind::Breakpoint && leg.n - done >= kCountedWalkMinHits &&
        walk_counted(session, a, done, leg.n, [&](uint64_t hit) { leave_checkpoint(i, hit); })) {
      continue;
    }
    // The anchor's trap alone: the user's are not this walk's.
    Traps anchor;
    if (a.kind == Anchor::Kind::Breakpoint) {
      anchor.breakpoints = {a.addr()};
    } else {
      anchor.watchpoints = {a.watch};
    }
    for (uint64_t hit = done; hit < leg.n; ++hit) {
      ReplayStop s = session.resume({.stop_after_event = true, .traps = anchor});
      bool ok = (a.kind == Anchor::Kind::Breakpoint && s.kind == ReplayStop::Kind::Breakpoint) ||
                (a.kind == Anchor::Kind::Watchpoint && s.kind == ReplayStop::Kind::Watchpoint && !s.by_kernel);
      BS_ASSERT(ok && !s.event, "walking to " << to.describe() << ": leg " << i << " hit " << hit
                                              << " not reached (stop kind " << static_cast<int>(s.kind) << ")");
      maybe_checkpoint(i, hit + 1, kHitsPerWalkCheckpoint);
    }
  }
}

void ReplayTimeline::restart(std::optional<uint64_t> event) {
  end_diversion();
  lazy_.reset();  // a new position: the replay's own is as good a start as any
  Mark target{checkpoints_.front().mark.event, {}, 0};
  if (event && *event > target.event) {
    // Stop at the boundary before `event`, or the end of the recording.
    std::unique_ptr<ReplaySession> s = checkpoints_.front().session->clone();
    Mark m = target;
    walk(*s, m, m);
    while (s->next_event() < *event) {
      ReplayStop r = s->resume({.single_step = false, .stop_after_event = true, .stop_before = {}});
      if (r.kind != ReplayStop::Kind::EventReplayed) break;
    }
    target = Mark{s->next_event(), {}, 0};
  }
  seek(target);
  end_reported_ = false;
  last_siginfo_.clear();
}

int ReplayTimeline::create_checkpoint() {
  materialize();
  return checkpoints_.add(CheckpointStore::Kind::User, mark_, fork_of(*current_));
}

bool ReplayTimeline::delete_checkpoint(int id) {
  return checkpoints_.remove_user(id);
}

std::vector<CheckpointInfo> ReplayTimeline::checkpoints() const {
  std::vector<CheckpointInfo> out;
  for (const Checkpoint& cp : checkpoints_) {
    if (cp.id > 0) out.push_back({cp.id, cp.mark.event, cp.mark.describe()});
  }
  return out;
}

bool ReplayTimeline::restart_checkpoint(int id) {
  end_diversion();
  const Checkpoint* cp = checkpoints_.find_user(id);
  if (!cp) return false;
  lazy_.reset();
  current_ = cp->session->clone();
  mark_ = cp->mark;
  end_reported_ = false;
  last_siginfo_.clear();
  return true;
}

}  // namespace backstep
