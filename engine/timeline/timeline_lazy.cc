// The lazy position: reverse steps answered from the cache of the recent
// trajectory (trajectory.h) without moving the replay.
//
// gdb's reverse-next over a line sends one reverse step (`bs`) per
// instruction, and between two reads only the stop's registers (rbp, rsp
// and rip come in the stop reply) and the 64-byte stack line of its frame
// (`set debug remote 1`: one `m` per step). A seek costs a fork of the
// nearest checkpoint and a walk; 90,000 of them were two minutes. So a
// reverse step whose position is cached only moves `lazy_` (where the
// user stands): the registers, the XSAVE area and the saved stack lines
// of that position answer the client, and the replay is brought there
// (materialize(): a seek) only for what the cache cannot answer exactly:
// other memory, another thread's registers, running forwards, a
// checkpoint, a reverse-continue.
//
// The cache is filled by single-stepping forward over a stretch once:
// while counting the steps back to a trap (count_steps) and, for a
// position after steps with nothing cached before it, from the nearest
// checkpoint on the way (fill_before): the steps a seek would walk.
#include <sys/mman.h>

#include <algorithm>

#include "values/log.h"
#include "engine/core/proc_maps.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {
namespace {

// Checkpoints while filling, as count_steps leaves them: the positions
// cached are the ones most likely to be materialized next.
constexpr uint64_t kStepsPerFillCheckpoint = 256;
constexpr uint64_t kLine = 64;  // gdb's stack cache reads 64-byte lines

// The memory windows saved at each position: the lines around the stack
// pointer and the frame pointer, where a debugger's unwinder reads.
std::vector<std::pair<uint64_t, uint64_t>> window_ranges(const Registers& regs) {
  auto line = [](uint64_t a) { return a & ~(kLine - 1); };
  uint64_t sp = line(regs.sp()), bp = line(regs.raw().rbp);
  std::vector<std::pair<uint64_t, uint64_t>> r;
  if (sp >= kLine) r.push_back({sp - kLine, sp + 3 * kLine});
  if (bp >= kLine) r.push_back({bp - kLine, bp + 2 * kLine});
  std::sort(r.begin(), r.end());
  if (r.size() == 2 && r[1].first <= r[0].second) {
    r[0].second = std::max(r[0].second, r[1].second);
    r.pop_back();
  }
  return r;
}

}  // namespace

void ReplayTimeline::set_trajectory_use(TrajectoryUse use) {
  materialize();
  trajectory_use_ = use;
  trajectory_.clear();
}

void ReplayTimeline::set_logical(const Mark& m) {
  if (m == mark_) {
    lazy_.reset();
  } else {
    lazy_ = m;
  }
}

void ReplayTimeline::materialize() {
  if (!lazy_) return;
  Mark target = std::move(*lazy_);
  lazy_.reset();
  seek(target);
}

std::vector<std::pair<uint64_t, uint64_t>> ReplayTimeline::read_only_mappings() {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (const MapsEntry& e : read_proc_maps(current_->task().tid())) {
    // [vvar] is read-only to the program but the kernel rewrites it.
    bool kernel_data = e.name.rfind("[vvar", 0) == 0;
    if ((e.prot & PROT_READ) && !(e.prot & PROT_WRITE) && !kernel_data) out.push_back({e.start, e.end});
  }
  return out;
}

void ReplayTimeline::record_position() {
  if (!trajectory_.filling()) return;
  TrajectoryEntry e;
  e.runs = static_cast<pid_t>(current_->next_thread());
  e.stopped = static_cast<pid_t>(current_->stopped_thread());
  e.regs = live_registers(e.runs);
  const TrajectoryEntry* prev = trajectory_.last_added();
  std::vector<uint8_t> xs = current_->thread_xstate(static_cast<uint32_t>(e.runs));
  if (prev && prev->runs == e.runs && prev->xstate && *prev->xstate == xs) {
    e.xstate = prev->xstate;
  } else {
    e.xstate = std::make_shared<const std::vector<uint8_t>>(std::move(xs));
  }
  // The stack and frame pointers of the thread as it really is (the pc
  // alone may differ in e.regs, inside a syscall stub).
  Registers real = current_->thread_registers(static_cast<uint32_t>(e.runs));
  for (const auto& [start, end] : window_ranges(real)) {
    std::vector<uint8_t> bytes = current_->read_memory(start, end - start);
    if (bytes.empty()) continue;
    std::shared_ptr<const MemoryWindow> same;
    if (prev) {
      for (const auto& w : prev->windows) {
        if (w->addr == start && w->bytes == bytes) same = w;
      }
    }
    e.windows.push_back(same ? same : std::make_shared<const MemoryWindow>(MemoryWindow{start, std::move(bytes)}));
  }
  trajectory_.add(std::move(e));
}

void ReplayTimeline::fill_before(const Mark& before) {
  // From the nearest checkpoint in the same run of steps: a seek to
  // `before` would clone it and walk these very steps, so caching them
  // costs little more than one seek, and every later step back to it is
  // free. Without one, from the start of the run (the seek there walks
  // traps or events, which are not single-step positions).
  Mark start = before;
  start.steps = before.steps >= Trajectory::kMaxEntries ? before.steps + 1 - Trajectory::kMaxEntries : 0;
  if (const Checkpoint* cp = checkpoints_.best_before(before, Bound::Inclusive)) {
    Mark leg = cp->mark;
    leg.steps = 0;
    Mark ours = before;
    ours.steps = 0;
    if (!cp->mark.at_event && leg == ours && cp->mark.steps > start.steps) start = cp->mark;
  }
  seek(start);
  current_->set_echo(false);
  trajectory_.begin(start, read_only_mappings());
  try {
    Mark cur = start;
    for (;;) {
      record_position();
      if (cur == before) break;
      if (cur.steps > start.steps && cur.steps % kStepsPerFillCheckpoint == 0) {
        if (!checkpoints_.has_at(cur)) add_automatic_checkpoint(cur, *current_);
      }
      ReplayStop r = current_->resume({.single_step = true});
      cur = cur.after_step();
      mark_ = cur;
      BS_ASSERT(r.kind == ReplayStop::Kind::Step && !r.event,
                "caching the steps to " << before.describe() << ": left the interval at " << cur.describe());
    }
  } catch (...) {
    trajectory_.clear();
    throw;
  }
  trajectory_.end();
  checkpoints_.thin();
}

std::optional<TargetStop> ReplayTimeline::step_backward_cached(pid_t thread) {
  // A step back over a watched write reports the watchpoint: that needs the
  // replay (step_backward's probe).
  if (trajectory_use_ == TrajectoryUse::Off || !watchpoints_.empty()) return std::nullopt;
  const Mark at = position();
  if (at.at_event) return std::nullopt;
  Mark before = at;
  if (at.steps == 0) {
    // Before a trap: cached only as the end of the pass before a
    // breakpoint's hit (batched_before); otherwise count_steps.
    if (at.anchors.empty() || at.anchors.back().kind != Anchor::Kind::Breakpoint || at.anchors.back().count < 2) {
      return std::nullopt;
    }
    --before.anchors.back().count;
    std::optional<uint64_t> end = trajectory_.complete_run_end(before);
    if (!end) return std::nullopt;
    before.steps = *end;
  } else {
    --before.steps;
  }
  const TrajectoryEntry* e = trajectory_.find(before);
  if (!e) {
    lazy_ = at;  // the fill moves the replay; the user stays at `at` until the step is taken
    fill_before(before);
    e = trajectory_.find(before);
    BS_ASSERT(e, "caching the steps to " << before.describe() << ": the last one is not cached");
  }
  // Replay runs one thread in an interval: another thread's previous
  // instruction is in an earlier interval (step_backward searches it).
  if (thread != 0 && thread != e->runs) {
    set_logical(at);
    return std::nullopt;
  }
  // A step off a listed hit (batched_before cached the pass before it):
  // the reverse-continue that follows lands on the listed hit before.
  if (at.steps == 0) hit_list_.note_step_back(at, before);
  set_logical(before);
  ++trajectory_.steps_served;
  end_reported_ = false;
  TargetStop stop;
  stop.kind = TargetStop::Kind::Step;
  stop.tid = e->runs;
  return stop;
}

}  // namespace backstep
