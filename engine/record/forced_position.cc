// Forced positions: delivering a signal to a program that runs user code
// without system calls (a loop that waits for a timer's SIGALRM to set a
// flag). Without a branch counter, a signal can only be replayed where its
// position is exact; the next system call is such a place, so a signal that
// arrives in user code is held back until then (record_signals.cc). When the
// program makes no system call for kForceAfterMs, the recorder stops it
// (PTRACE_INTERRUPT) and chooses a position it can name without a counter
// (shared/notes/counterless-progress.md §4):
//
//  - It lets the program run once round the loop back to the same
//    instruction (a hardware breakpoint there). Where the registers came
//    back unchanged, it digests the program's state (registers, writable
//    memory, SSE registers: engine/core/state_digest.h), runs the loop once
//    more and digests it again. If nothing changed, the program is in a
//    fixpoint: it would stay in this very state until the signal changes
//    something. (A digest reads all writable memory, tens of milliseconds
//    for a program that holds 100 MB: a loop whose registers change is
//    never digested before the position is taken.)
//  - Either way the position written is (registers, digest) at that
//    instruction, and means "the first moment since the previous event with
//    exactly this state". Equal state means an equal future, so the signal
//    delivered at the first such moment in replay has the same effect as it
//    had here, however many times the state recurred before the recorder
//    looked.
//  - Unless replay finds it at native speed (counted, or at a count site
//    whose registers tell the passes apart), the event also carries the
//    state itself (the pages changed since the previous stored state, the
//    XSAVE area): replay can put the program there directly when running
//    to it would take too long. A fixpoint too (written as a plain digest
//    position, see below).
//
// Replay (engine/replay/replay_position.cc) finds it with a breakpoint at
// the instruction, comparing registers at each hit and the digest when they
// match. Its cost is one trap per pass through the loop since the previous
// event: nothing for a spin on a flag, but a loop that counts makes about
// 10^5 passes per second of replay, hence the stored state.
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "engine/core/hit_counter.h"
#include "engine/core/proc_maps.h"
#include "values/log.h"
#include "engine/core/signals.h"
#include "engine/core/state_digest.h"
#include "engine/record/position_site.h"
#include "engine/record/record_session.h"

namespace backstep {
namespace {

using Clock = std::chrono::steady_clock;

// How long the program may run user code with a signal held back before the
// recorder steps in, how often it looks, and how long one pass round a loop
// may take.
constexpr long kForceAfterMs = 20;
constexpr auto kPassLimit = std::chrono::milliseconds(10);
// DR7: local enable of DR0, as an instruction breakpoint (R/W0 = LEN0 = 0).
constexpr uint64_t kDr7ExecDr0 = 1;
constexpr uint64_t kDr6Dr0 = 1;
// With other threads waiting: after kProbeNs the recorder looks whether the
// running thread spins in a loop that changes nothing (then it hands over at
// once); otherwise it hands over after kSliceNs.
constexpr uint64_t kProbeNs = 2'000'000;
// How long a thread asked to yield at its next buffered call may take to
// make one before it is interrupted.
constexpr uint64_t kYieldWaitNs = 4'000'000;
constexpr uint64_t kSliceNs = 100'000'000;
// A thread's slice: record --chaos chooses each (chaos_schedule.h).
uint64_t slice_of(const RecordTask& t) { return t.slice_ns ? t.slice_ns : kSliceNs; }
// A state with more bytes of memory to store is not stored with its
// position: replay then finds it by running, however long that takes.
constexpr std::size_t kMaxImageBytes = std::size_t{256} << 20;
// A chain of incremental stored states is at most this long: every
// kFullStateEvery-th state of a process is a full one.
constexpr int kFullStateEvery = 16;

// Puts the program's state into `event` (a Position): the pages that
// differ from the process's previous stored state, or every page
// (trace::StoredState). Returns what the process's next state is compared
// with (its event number still to be set), or nothing where no state could
// be stored (too large).
std::optional<RecordProcess::StoredPages> store_state(Task& task, const RecordProcess* process,
                                                      trace::Event& event) {
  const Clock::time_point started = Clock::now();
  const RecordProcess::StoredPages* previous =
      process && process->stored_pages && process->stored_pages->incremental + 1 < kFullStateEvery
          ? &*process->stored_pages
          : nullptr;
  MemoryDelta delta = memory_delta(task, previous ? &previous->hashes : nullptr);
  if (previous && delta.changed_bytes * 2 > delta.image_bytes) {
    // Most of it changed: a full state costs at most twice as much, and
    // the chain starts again.
    previous = nullptr;
    delta = memory_delta(task, nullptr);
  }
  if (delta.changed_bytes > kMaxImageBytes) {
    BS_LOG(Record, "no stored state: " << delta.changed_bytes << " bytes to store");
    return std::nullopt;
  }
  trace::StoredState state;
  state.kind = previous ? trace::StoredState::Kind::Incremental : trace::StoredState::Kind::Full;
  state.base = previous ? previous->event : 0;
  for (const PageSpan& r : delta.ranges) state.ranges.push_back({r.start, r.end});
  for (const PageSpan& z : delta.zeroed) state.zeroed.push_back({z.start, z.end});
  for (MemoryDelta::Run& run : delta.changed) event.writes.push_back({run.start, std::move(run.bytes)});
  event.xstate = task.xstate();
  event.stored_state = std::move(state);
  const auto took = std::chrono::duration_cast<std::chrono::microseconds>(Clock::now() - started);
  BS_LOG(Record, "stored state: " << trace::to_string(event.stored_state->kind) << ", " << delta.changed_bytes
                                  << " of " << delta.image_bytes << " bytes"
                                  << (previous ? " on event " + std::to_string(previous->event) : std::string())
                                  << ", " << delta.ranges.size() << " ranges, in " << took.count() << " us");
  return RecordProcess::StoredPages{std::move(delta.hashes), 0, previous ? previous->incremental + 1 : 0};
}

}  // namespace

void RecordSession::want_forced_position(RecordTask& t) {
  if (t.force_wanted) return;
  t.force_wanted = true;
  t.force_at_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count() +
      kForceAfterMs * 1000000);
  if (forcing_tasks_++ == 0) signals_->tick_every(kTickMs);
}

void RecordSession::cancel_forced_position(RecordTask& t) {
  if (!t.force_wanted) return;
  t.force_wanted = false;
  if (--forcing_tasks_ == 0) signals_->stop_ticking();
}

void RecordSession::maybe_interrupt(RecordTask& t) {
  Task& task = t.task;
  if (t.run != RunState::Running) return;
  uint64_t now = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
  if (t.interrupt_pending) {
    // The kernel may drop an interrupt that crosses another ptrace stop (the
    // probe's breakpoint trap, a signal): its PTRACE_EVENT_STOP then never
    // comes, and a thread that spins waiting for the others would run for
    // ever. Ask again; a second stop, should both come, is passed over.
    if (now - t.interrupt_sent_ns < kInterruptAgainNs) return;
    BS_LOG(Record, "thread " << t.tid() << ": no stop for the interrupt; interrupting again");
    task.interrupt();
    t.interrupt_sent_ns = now;
    return;
  }
  bool signal = t.force_wanted;
  bool handover = others_waiting(t);
  if (!signal && !handover) return;
  uint64_t due = UINT64_MAX;
  if (signal) due = t.force_at_ns;
  if (handover) {
    due = std::min<uint64_t>(due, t.since_ns + (t.probed ? slice_of(t) : std::min(kProbeNs, slice_of(t))));
  }
  if (now < due) return;
  if (t.buffer && !t.yield_asked_ns) {
    // A thread that makes buffered calls reaches a switch point at its next
    // one, cheaper than a forced position: ask first, interrupt if that
    // does not come soon.
    request_yield(t);
    t.yield_asked_ns = now;
    return;
  }
  if (t.yield_asked_ns && now - t.yield_asked_ns < kYieldWaitNs) return;
  BS_LOG(Record, "thread " << t.tid() << " runs user code"
                           << (signal ? " with a signal held back" : " while another waits") << ": interrupting");
  task.interrupt();
  t.interrupt_pending = true;
  t.interrupt_sent_ns = now;
}

std::optional<WaitStatus> RecordSession::wait_with_deadline(Task& task, Clock::time_point deadline) {
  for (;;) {
    std::optional<WaitStatus> ws;
    {
      trace::TraceWriter::Idle idle(*writer_);
      ws = task.wait_interruptible();
    }
    if (ws) return ws;
    if (Clock::now() >= deadline) return std::nullopt;
  }
}

RecordSession::PassEnd RecordSession::run_pass(RecordTask& t, const Registers& start) {
  Task& task = t.task;
  // DR6 as its tracer (a recorded one) would read it, kept.
  const uint64_t status = task.debug_register(6);
  // RF lets the instruction at the breakpoint's own address run once
  // without trapping.
  task.set_debug_register(0, start.ip());
  task.set_debug_register(7, kDr7ExecDr0);
  Registers resumed = start;
  resumed.raw().eflags |= kResumeFlag;
  task.set_regs(resumed);
  task.resume(ResumeHow::Syscall);
  const Clock::time_point pass_deadline = Clock::now() + kPassLimit;
  std::optional<WaitStatus> ws = wait_with_deadline(task, pass_deadline);
  // An asynchronous signal that comes during the pass (a timer that expired
  // while the state was digested stops the program before its first
  // instruction) is held back like the one that asked for this position,
  // and the pass goes on: handed to handle_stop, it would only be held back
  // there and the position never taken.
  while (ws && ws->is_signal() && ws->signal != SIGTRAP) {
    siginfo_t info = task.siginfo();
    if (is_synchronous_fault(info)) break;
    hold_back_signal(t, info);
    task.resume(ResumeHow::Syscall);
    ws = wait_with_deadline(task, pass_deadline);
  }
  if (!ws) {
    // Not back within the limit: not a short loop. Take wherever it is now.
    task.interrupt();
    t.interrupt_pending = true;
    t.interrupt_sent_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
    ws = task.wait();
  }
  task.set_debug_register(7, 0);
  PassEnd end;
  if (ws->is_signal() && ws->signal == SIGTRAP && (task.debug_register(6) & kDr6Dr0)) {
    task.set_debug_register(6, status);
    end.looped = true;
  } else if (ws->kind == WaitStatus::Kind::EventStop && ws->event == PTRACE_EVENT_STOP && t.interrupt_pending) {
    t.interrupt_pending = false;
    if (in_buffered_call(t) || !good_position(task, task.regs().ip())) {
      request_yield(t);
      t.force_at_ns = 0;
      t.since_ns = 0;
      task.resume(ResumeHow::Syscall);
      end.handled = false;
    }
  } else {
    // A system call or a signal came first: the held-back signal goes out
    // there, the usual way.
    end.handled = handle_stop(t, *ws);
  }
  return end;
}

bool RecordSession::on_interrupted(RecordTask& t) {
  Task& task = t.task;
  t.interrupt_pending = false;
  bool signal = t.force_wanted && !t.deferred_signals.empty();
  if (!signal && !others_waiting(t)) {
    task.resume(ResumeHow::Syscall);  // an interrupt that came after the program reached an event
    return false;
  }
  // Inside the preload library's handling of a call, replay runs other
  // code than recording did (it returns recorded results): no position
  // can be named there. Its next call takes the traced path instead.
  if (t.handover_count && !in_buffered_call(t)) {
    uint64_t now = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
    bool due = signal || now >= t.since_ns + slice_of(t);
    if (std::optional<bool> done = counted_handover(t, signal, !due)) return *done;
  }
  if (t.parked_count) {
    // The count ended (counted_handover()); its pages are gone by now
    // unless the thread waits in a buffered call.
    if (in_buffered_call(t)) {
      request_yield(t);
      task.resume(ResumeHow::Syscall);
      return false;
    }
  }
  Registers start = task.regs();
  if (in_buffered_call(t)) {
    request_yield(t);
    t.force_at_ns = 0;
    t.since_ns = 0;
    task.resume(ResumeHow::Syscall);
    return false;
  }
  if (!good_position(task, start.ip())) {
    // Let it run a little further and look again.
    t.force_at_ns = 0;
    t.since_ns = 0;
    task.resume(ResumeHow::Syscall);
    return false;
  }
  // Where debug registers never fire (HitCounter::debug_registers_work),
  // no pass round the loop can be timed: no fixpoint is seen, and a
  // thread spinning in a loop is handed over when its slice ends.
  // Nor while its tracer has armed its debug registers
  // (tracer_debug_registers.h).
  const bool pass_possible = HitCounter::debug_registers_work() && !t.debug_armed && !t.debug_deferred;
  uint64_t now_ns = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
  if (!pass_possible && !signal && now_ns < t.since_ns + slice_of(t)) {
    t.probed = true;
    task.resume(ResumeHow::Syscall);
    return false;
  }
  // Once round the loop back to this instruction. Registers equal after
  // the pass mean a spin on memory unless the pass wrote: only then is the
  // state digested, and the loop run once more, to compare (a computing
  // thread's probe digests nothing: a digest reads all writable memory).
  bool looped = false;
  std::optional<StateDigest> before;
  if (pass_possible) {
    PassEnd pass = run_pass(t, start);
    if (pass.handled) return *pass.handled;
    looped = pass.looped;
    Registers back = without_trap_flags(task.regs());
    if (looped && Registers::differences(without_trap_flags(start), back).empty()) {
      task.set_regs(back);
      start = back;
      before = state_digest(task, task.xstate());
      pass = run_pass(t, start);
      if (pass.handled) return *pass.handled;
      looped = pass.looped;
    }
  }

  Registers here = without_trap_flags(task.regs());
  task.set_regs(here);
  uint64_t now = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
  // Round the loop with nothing changed in the registers (a fixpoint if
  // the memory did not change either).
  const bool same_pass = looped && Registers::differences(without_trap_flags(start), here).empty();
  if (!signal && !(same_pass && before) && now < t.since_ns + slice_of(t)) {
    // It computes rather than waits: let it have the rest of its slice.
    t.probed = true;
    task.resume(ResumeHow::Syscall);
    return false;
  }
  // Whether the registers here tell this arrival apart from the previous
  // one at the same instruction (count_site_search.cc): then replay finds
  // the position at native speed, and it needs no stored state.
  bool distinct = looped && here.ip() == start.ip() && !without_trap_flags(start).same_gprs(here);
  // Round the loop back here, where no counting stub fits (a `loop`
  // instruction at the end of a 5-byte loop, which is where a thread is
  // mostly interrupted on some CPUs): the search moves on to one that
  // does, or the thread would never be counted and each of its positions
  // would store the state. Not for a loop whose registers did not change
  // (a fixpoint, found below).
  const bool search = !signal && !same_pass && (!looped || !count_site_possible(t, here.ip(), read_proc_maps(t.tid())));
  if (search) {
    SiteSearch search = search_count_site(t);
    if (search.stopped) return *search.stopped;
    distinct = search.distinct;
    here = without_trap_flags(task.regs());
    task.set_regs(here);
    if (!good_position(task, here.ip())) {
      // Stepped to an instruction no position may name: look again soon.
      t.since_ns = 0;
      task.resume(ResumeHow::Syscall);
      return false;
    }
  }
  StateDigest after = state_digest(task, task.xstate());
  bool fixpoint = same_pass && before && *before == after;
  if (!signal && !fixpoint && now < t.since_ns + slice_of(t)) {
    t.probed = true;
    task.resume(ResumeHow::Syscall);
    return false;
  }
  BS_LOG(Record, "forced position at 0x" << std::hex << here.ip() << std::dec << (fixpoint ? " (fixpoint)" : "")
                                          << ", " << after.bytes << " bytes digested");
  trace::Event event;
  event.kind = trace::EventKind::Position;
  event.tid = static_cast<uint32_t>(task.tid());
  event.regs = here.to_block();
  // A fixpoint is written as any digest position, with its state: on a
  // machine whose debug registers time the pass (only there is a fixpoint
  // seen), a replay once failed to find a fixpoint's digest at any pass of
  // a spin loop (timer_fast_period, the first position after setitimer;
  // not reproduced since, the cause not found), and without a stored state
  // it could only report a divergence.
  event.position = trace::ForcedPosition{after.combined(), false};
  // The next time, the thread's arrivals here are counted; and replay finds
  // this one with a stub that stops only where the registers match.
  bool countable = remember_count_site(t, here.ip());
  std::optional<RecordProcess::StoredPages> stored;
  if (!(countable && distinct)) {
    // The state itself, for a replay that would need too many passes round
    // the loop to find the moment (replay_position.cc).
    stored = store_state(task, t.process, event);
  }
  write_event(event);
  if (stored && t.process) {
    stored->event = writer_->events_written() - 1;
    t.process->stored_pages = std::move(stored);
  }
  ++result_.forced_positions;
  return hand_over_at_position(t, here, signal, fixpoint ? std::optional<uint64_t>(after.combined()) : std::nullopt);
}

bool RecordSession::hand_over_at_position(RecordTask& t, const Registers& here, bool signal,
                                          std::optional<uint64_t> spin) {
  t.reached_boundary(here);
  if (signal) {
    // The held-back signals are delivered right here, at an event boundary.
    redeliver_deferred(t);
    t.task.resume(ResumeHow::Syscall);
  } else {
    // Another thread's turn.
    if (spin) t.spin_digest = *spin;
    t.run = RunState::Stopped;
    if (current_ == &t) current_ = nullptr;
  }
  return false;
}

}  // namespace backstep
