// A reverse-stepi into a long stretch without events: the instruction before
// a breakpoint's hit when the trap before it lies millions of instructions
// back (the first step back from a breakpoint after a long computation).
// Single-stepping the whole stretch (~40 us an instruction here) took
// 40 s per million instructions; without a hardware counter no count of
// instructions names a place in between.
//
// So the replay approaches the hit at the program's own speed, in two
// stages, and single-steps only the last few hundred instructions. (A
// stretch that runs for less than ~250 us is still single-stepped whole:
// its positions are all cached then, which a reverse-next back through a
// loop wants, and stepping it costs at most seconds.)
//
// 1. Time. From a copy at the start, the program runs to the hit with its
//    CPU time measured (engine/core/time_sampler.h), stopping after 1 ms,
//    then each time it ran a quarter more; at each such stop a plain copy
//    is forked. The last one before the hit is named by the state there (a
//    State anchor: the first moment after the start with exactly these
//    registers and memory, unique in the stretch since equal state means
//    an equal future) and kept as a checkpoint. From it the program runs
//    again with a stop after half the rest, then half the estimated rest,
//    and so on, while the rest is longer than a few task-clock periods.
//    Where the stops fall is not reproducible; what is named is, and a
//    later seek finds the kept checkpoint.
// 2. Passes. Where the code there can move, a counting stub in the copy
//    at the checkpoint counts the passes through the instruction X it
//    stands on (or one of the next few) up to the hit at about the
//    program's speed (engine/replay/replay_count_stub.cc; time stops then
//    end at 1 ms from the hit), and a second copy stops right before the
//    last pass: "m passes through X", a checkpoint. Else, from that
//    checkpoint, X is counted by the kernel up to the hit, 512 passes at
//    a time (engine/core/hit_counter.h: ~4.5 us a pass here): m passes. "m passes
//    through X" is the last pass before the hit, an ordinary breakpoint
//    anchor, walked in one counted stop from the copy at the last chunk's
//    end (a checkpoint). From there the caller single-steps to the hit (X
//    belongs to the loop that ran last, so the rest is about one pass of
//    it); if that is still far, it approaches again from where it is, with
//    another instruction (X runs no more before the hit).
//
// Before the kept checkpoint, reverse-stepi searches for the State anchor
// with a breakpoint at its pc (timeline_interrupt.cc: limited, then a
// clear error). Where the kernel has no task clock or counters, the caller
// single-steps as before.
#include "engine/timeline/timeline_approach.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "values/log.h"
#include "engine/core/time_sampler.h"
#include "engine/core/x86_decoder.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep {
namespace {

// Below this much CPU time to the hit, time stops cut no further (the
// kernel's 10 us period, and a resume's own cost counted in the task
// clock); passes are counted from there. Measured here: with the clock-free
// first pass below, runs get to 10-30 us from the hit; at 30 us, the first
// reverse-stepi of the long-stretch bench took 44-112 ms, at 15 us 36-79 ms
// (more passes to count against one more short run).
constexpr uint64_t kTimeFloorNs = 15'000;
// Where a counting stub can count the passes (engine/replay/
// replay_count_stub.cc), time stops end at this much CPU time from the hit
// instead: two runs over the rest at about the program's speed (counting,
// then stopping near the end) cost less than another timed run (3-9 ms
// here) from there on.
constexpr uint64_t kStubTimeFloorNs = 1'000'000;
// A stretch of less CPU time than this is single-stepped whole, as before
// (unless that runs into the step limit): up to ~1,000,000 instructions of
// a simple loop here. The clock counts the first touches of pages in a
// fresh copy too: a 10,000-pass loop of ~100,000 instructions measured
// 43-93 us, 529 instructions through libc 102 us.
constexpr uint64_t kApproachMinNs = 250'000;
// Runs of stage 1 at most (each leaves the rest at about half or less).
constexpr int kMaxTimedRuns = 12;
// The first run's first stop: after the longest stretch that is stepped
// whole, so that such a stretch costs one run and no copy.
constexpr uint64_t kFirstStopNs = 1'000'000;
static_assert(kFirstStopNs >= kApproachMinNs);
// Stage 2 counts passes with a stop after this many: one stop and a copy
// (~0.3 ms) per 512 passes (~1.8 ms of counting), and the seek after it
// walks fewer than that from the last copy.
constexpr uint64_t kPassesPerChunk = 512;
// With a counting stub, a checkpoint is also left this many passes before
// the last: the reverse steps that follow go back a few passes at a time
// (timeline_search.cc caches 256 before a hit at once), and a seek to a
// pass before the last one would otherwise walk every pass from the kept
// checkpoint with a debug exception each (300,000 passes: 1.4-2.6 s here).
constexpr uint64_t kStubLeadPasses = 4096;

bool always(const trace::Event&) { return true; }

// The first instruction at or after the one `s` stands on, in
// straight-line code, where a counting stub can count (its passes are
// those of the same loop); not the hit's. Where that code ends first (a
// jump, a call), and where the kernel cannot count the passes instead
// (debug registers that never fire: `max_steps` > 0), the thread's next
// instructions as it runs them: `s` is single-stepped (at most
// `max_steps`; the caller throws it away). Else the passes could not be
// counted at all, and the approach would start again from the steps after
// the kept checkpoint (approach_test saw two approaches where one is due).
constexpr int kStubSiteSteps = 64;

std::optional<uint64_t> stub_site(ReplaySession& s, uint64_t hit, int max_steps) {
  uint64_t at = s.registers().ip();
  for (int i = 0; i < 4; ++i) {
    if (at != hit && s.counting_stub_possible(at)) return at;
    std::vector<uint8_t> code = s.read_memory(at, 16);
    std::optional<x86::Instruction> insn = x86::decode(code.data(), code.size(), at);
    if (!insn || insn->placement == x86::Placement::FixedControlFlow ||
        insn->placement == x86::Placement::RelativeJump) {
      break;
    }
    at += insn->length;
  }
  const uint32_t runs = s.next_thread();
  for (int i = 0; i < max_steps; ++i) {
    ReplayStop r = s.resume({.single_step = true});
    if (r.kind != ReplayStop::Kind::Step || r.event) return std::nullopt;
    at = s.thread_registers(runs).ip();
    if (at == hit) return std::nullopt;
    if (s.counting_stub_possible(at)) return at;
  }
  return std::nullopt;
}

}  // namespace

bool counting_stubs_enabled() {
  static const bool on = [] {
    const char* v = std::getenv("BACKSTEP_COUNTING_STUB");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

// Passes are counted by the kernel (a debug register) or by a counting
// stub; where debug registers never fire (HitCounter unavailable, as in
// many VMs), stubs alone, and the walks to the approach's anchors count
// with stubs too (walk_by_stub, timeline_counting.cc).
bool ReplayTimeline::approach_available() const {
  return approach_.on && TimeSampler::available() && (kernel_counting_ || counting_stubs_enabled());
}

TrapApproach::TrapApproach(ReplayTimeline& timeline, const Mark& from, uint64_t addr, uint32_t runs,
                           ShortStretch short_stretch)
    : t_(timeline),
      from_(from),
      addr_(addr),
      runs_(runs),
      short_stretch_(short_stretch),
      hit_breakpoint_{addr},
      run_{.stop_after_event = true, .stop_before = always, .traps = Traps{hit_breakpoint_, {}}},
      start_(from) {}

std::optional<Mark> TrapApproach::run() {
  if (!t_.approach_available() || from_.at_event) return std::nullopt;
  if (time() == Timed::Declined) return std::nullopt;
  uint64_t passes = count_passes();
  Mark to = passes > 1 ? passes_mark(passes) : start_;
  if (to == from_) return std::nullopt;  // no nearer place: the caller steps on
  BS_LOG(Replay, "approach: from " << from_.describe() << " to " << to.describe());
  t_.seek(to);
  ++t_.approach_.approaches;
  return to;
}

// A resume that does not single-step. Where the replay single-stepped
// the program through a `pushf` (the library's trampoline saves the
// flags), the trap flag it pushed comes back with the `popf` and traps
// once more: a Step the program never asked for (nothing else sets TF
// in a replay). Cleared, the run goes on.
ReplayStop TrapApproach::resume_free(ReplaySession& s) {
  for (;;) {
    ReplayStop r = s.resume(run_);
    if (r.kind != ReplayStop::Kind::Step || r.event) return r;
    Registers regs = s.registers();
    if (!(regs.raw().eflags & kTrapFlag)) return r;
    regs.raw().eflags &= ~kTrapFlag;
    s.task().set_regs(regs);
  }
}

void TrapApproach::run_to_hit(ReplaySession& s, const char* what) {
  ReplayStop r = resume_free(s);
  BS_ASSERT(r.kind == ReplayStop::Kind::Breakpoint && r.address == addr_ && !r.event,
            "approaching the hit at 0x" << std::hex << addr_ << " from " << from_.describe() << std::dec << " ("
                                        << what << "): stopped before it (kind " << static_cast<int>(r.kind)
                                        << ")");
}

std::unique_ptr<ReplaySession> TrapApproach::session_at_start() {
  if (start_ != from_) return t_.session_at(start_);
  std::unique_ptr<ReplaySession> s = t_.current_->clone();
  s->set_echo(false);
  return s;
}

uint64_t TrapApproach::time_floor() const { return stub_at_ ? kStubTimeFloorNs : kTimeFloorNs; }

// Named by its state (~1.3 ms here); the one it replaces goes.
void TrapApproach::keep(ReplaySession& copy) {
  Anchor a;
  a.kind = Anchor::Kind::State;
  a.state = state_here(copy);
  a.watch.addr = copy.registers().ip();
  // Named from `from_`: no other checkpoint of this approach is needed
  // to find it again.
  Mark here = from_.after_trap(a);
  int id = t_.add_state_checkpoint(here, copy);
  if (kept_) {
    t_.checkpoints_.evict_id(kept_);
  }
  kept_ = id;
  start_ = here;
  stub_at_ = counting_stubs_enabled() ? stub_site(copy, addr_, t_.kernel_counting_ ? 0 : kStubSiteSteps)
                                      : std::nullopt;
}

// A fresh copy's first touches of its pages (copy-on-write faults) count
// in its clock, tens of microseconds of it: the loop the checkpoint stands
// in runs once around first, unclocked, to its pc's next pass (a counted
// stop there, or a counting stub's). False where the hit came first.
bool TrapApproach::once_around(ReplaySession& s) {
  uint64_t pc = s.registers().ip();
  if (s.set_counted_stop(pc, 2)) {
    ReplayStop r = resume_free(s);
    return r.kind == ReplayStop::Kind::Breakpoint && r.address == pc && !r.event;
  }
  if (!stub_at_ || pc == addr_ || !s.counting_stub_possible(pc) || !s.arm_counting_stub(pc, 2, hit_breakpoint_)) {
    return true;  // clocked from here
  }
  ReplayStop r = resume_free(s);
  s.disarm_counting_stub();
  return r.kind == ReplayStop::Kind::Interrupted && !r.event;
}

// Stage 1: time.
TrapApproach::Timed TrapApproach::time() {
  // The CPU time from `start_` to the hit (rest_) is unknown until the
  // first run, which stops every kFirstStopNs at first, then every quarter
  // of the time it has run (the last stop is at most a fifth of the
  // stretch before the hit); the later runs stop at half the rest, then
  // half what is left...
  // The forward continue that reached the hit left a copy on the way
  // (stretch_copy.h): the first run starts there.
  if (std::unique_ptr<ReplaySession> copy = t_.stretch_.copy_for(from_, addr_)) {
    keep(*copy);
    BS_LOG(Replay, "approach: from the forward run's copy at " << start_.describe());
  }
  for (int round = 0; round < kMaxTimedRuns && (!known_ || rest_ > time_floor()); ++round) {
    Round r = timed_run();
    if (r == Round::Declined) return Timed::Declined;
    if (r == Round::Last) break;
  }
  return Timed::Done;
}

TrapApproach::Round TrapApproach::timed_run() {
  std::unique_ptr<ReplaySession> s = session_at_start();
  if (start_ != from_ && !once_around(*s)) return Round::Last;  // the hit came first
  // The clock of the thread that reaches the hit: the stretch's time.
  s->start_run_clock(runs_);
  // The program's own CPU time: the clock less the forks of checkpoints
  // (the kernel's work in the program's name).
  uint64_t forks = 0;
  auto ran = [&] { return s->run_time_ns() - forks; };
  uint64_t forked_at = 0;
  // A copy at the latest stop before the hit; named (its state digested,
  // ~1.3 ms here) and made a checkpoint only once the run reached the
  // hit, since only the last one stays.
  std::unique_ptr<ReplaySession> latest;
  for (;;) {
    uint64_t left = rest_ > ran() ? rest_ - ran() : 0;
    s->set_time_sample(!known_                                  ? std::max(kFirstStopNs, ran() / 4)
                       : left / 2 >= TimeSampler::kMinPeriodNs ? left / 2
                                                               : 0);
    ReplayStop r = resume_free(*s);
    if (r.kind != ReplayStop::Kind::Interrupted) break;
    // A stop on the hit's own instruction is the hit itself (its int3 not
    // run yet): not before it.
    if (s->registers().ip() == addr_) continue;
    uint64_t before_fork = s->run_time_ns();
    latest = s->clone();
    forks += s->run_time_ns() - before_fork;
    forked_at = ran();
  }
  s->set_time_sample(0);
  BS_ASSERT(s->registers().ip() == addr_, "approaching the hit at 0x" << std::hex << addr_ << " from "
                                                                   << from_.describe() << ": ran past it");
  BS_ASSERT(s->stopped_thread() == runs_, "approaching the hit at 0x" << std::hex << addr_ << " from "
                                                                     << from_.describe() << std::dec << ": thread "
                                                                     << s->stopped_thread() << " reached it, not "
                                                                     << runs_);
  uint64_t total = ran();
  uint64_t before = rest_;
  bool was_known = std::exchange(known_, true);
  if (!was_known) {
    BS_LOG(Replay, "approach: " << total / 1000 << " us to the hit at 0x" << std::hex << addr_ << std::dec
                                 << " from " << from_.describe());
    // Short enough to single-step whole: every position of it is then
    // cached (timeline_lazy.cc), as a reverse-next back through a loop
    // wants. (No stop fell: the first comes after kFirstStopNs.) Not
    // from a forward run's copy: what lies before it is long.
    if (total < kApproachMinNs && short_stretch_ == ShortStretch::Decline && start_ == from_) {
      return Round::Declined;
    }
  }
  rest_ = total - forked_at;
  if (latest) keep(*latest);
  BS_LOG(Replay, "approach: " << before / 1000 << " us to the hit, now " << rest_ / 1000 << " us from "
                              << start_.describe());
  if (was_known && !latest && rest_ >= before) return Round::Last;  // no stop fell before the hit, and none will
  return Round::Again;
}

Mark TrapApproach::passes_mark(uint64_t n) const {
  Anchor bp;
  bp.watch.addr = x_;
  Mark m = start_.after_trap(bp);
  BS_ASSERT(m.anchors.size() == start_.anchors.size() + 1, "approach: " << m.describe() << " merged a leg");
  m.anchors.back().count = n;
  return m;
}

// Stage 2: passes through the instruction the nearest place stands on,
// counted by the kernel a chunk at a time: the copy at the last chunk's
// end becomes a checkpoint, so that the seek to the last pass walks at
// most a chunk of them again, not all (each costs a debug exception,
// ~3.5 us here: 18,000 passes are 60 ms).
uint64_t TrapApproach::count_passes() {
  std::unique_ptr<ReplaySession> s = session_at_start();
  x_ = s->thread_registers(runs_).ip();
  if (stub_at_) x_ = *stub_at_;
  uint64_t passes = 0;
  bool stubbed = false;
  if (x_ != addr_ && stub_at_) {
    if (std::optional<uint64_t> n = passes_by_stub(*s)) {
      passes = *n;
      stubbed = true;
    }
  }
  if (x_ != addr_ && !stubbed) passes = passes_by_kernel(s);
  return passes;
}

std::optional<uint64_t> TrapApproach::passes_by_stub(ReplaySession& s) {
  // With a counting stub in this copy (thrown away after): all the
  // passes to the hit; then in a second copy a stop right before the
  // last, which becomes a checkpoint once the stub is gone (the seek to
  // it starts there). Where the stub cannot be armed, nothing changed:
  // the copy counts with a debug register (passes_by_kernel).
  if (!s.arm_counting_stub(x_, 0, hit_breakpoint_)) return std::nullopt;
  run_to_hit(s, "counting with a stub");
  uint64_t passes = s.counting_stub_count();
  // A copy stopped right before the n-th pass becomes the checkpoint
  // "n passes through X".
  auto checkpoint_at = [&](uint64_t n) {
    std::unique_ptr<ReplaySession> b = session_at_start();
    bool armed = b->arm_counting_stub(x_, n, hit_breakpoint_);
    ReplayStop r = armed ? resume_free(*b) : ReplayStop{};
    BS_ASSERT(armed && r.kind == ReplayStop::Kind::Interrupted && !r.event,
              "approach: the counting stub's stop at pass " << n << " of 0x" << std::hex << x_ << " from "
                                                          << start_.describe() << " did not come");
    b->disarm_counting_stub();
    t_.add_automatic_checkpoint(passes_mark(n), *b);
  };
  if (passes > kStubLeadPasses + 1) checkpoint_at(passes - kStubLeadPasses);
  if (passes > 1) checkpoint_at(passes);
  return passes;
}

uint64_t TrapApproach::passes_by_kernel(std::unique_ptr<ReplaySession>& s) {
  std::unique_ptr<ReplaySession> chunk_end;
  uint64_t chunked = 0;
  for (;;) {
    if (!s->set_counted_stop(x_, kPassesPerChunk)) break;
    ReplayStop r = resume_free(*s);
    if (r.kind != ReplayStop::Kind::Breakpoint || r.address != x_ || r.event) break;
    chunked += kPassesPerChunk;
    chunk_end = s->clone();
  }
  s->set_counted_stop(x_, 0);
  if (chunk_end) {
    t_.add_automatic_checkpoint(passes_mark(chunked), *chunk_end);
    s = std::move(chunk_end);
  } else {
    s = session_at_start();
  }
  // The rest, at most a chunk, counted exactly.
  if (!s->set_hit_counting({x_})) return 0;
  run_to_hit(*s, "counting");
  uint64_t rest_passes = 0;
  for (const ReplaySession::HitCount& h : s->hit_counts()) {
    if (h.addr == x_ && h.tid == runs_) rest_passes = h.hits;
  }
  s->set_hit_counting({});
  return chunked + rest_passes;
}

}  // namespace backstep
