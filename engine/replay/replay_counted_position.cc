// Replaying a counted Position event: the recorder counted the thread's
// arrivals at one instruction (the site) since its previous event and
// stopped it at the N-th (engine/record/counted_handover.cc). Replay runs
// the thread to its N-th arrival there, and the registers must then be the
// recorded ones; nothing else is compared, nothing is stored.
//
// Three ways to count, the fastest that the debugger's requests allow:
//  - a counting stub at the site (engine/core/counting_stub.h), armed with
//    the arrivals still to come: the program runs at its own speed and
//    stops at the N-th;
//  - a breakpoint at the site, one trap per arrival: where a breakpoint of
//    the user's lies in the code the stub would move (each of its hits is
//    reported), or another stub holds that code;
//  - single steps: a step asked for, stepping off the site or a reported
//    breakpoint, and watchpoints emulated by steps (replay_soft_watch.cc).
// A debugger's stop in the middle (a breakpoint in the loop, a watchpoint,
// an interrupt) keeps the arrivals counted so far in position_count_, which
// checkpoints copy, and the next run goes on from there.
#include <signal.h>

#include <sstream>

#include "values/log.h"
#include "engine/replay/replay_session.h"

namespace backstep {
namespace {

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

}  // namespace

std::optional<CountingStub> ReplaySession::arm_position_stub(uint64_t site, uint64_t countdown,
                                                             const Registers* match) {
  if (counting_stub_ && counting_stub_->stub.patches(site)) return std::nullopt;
  // The injected calls that map the stub are not the program's CPU time.
  TimeSampler::Paused paused(time_sample_.get());
  std::optional<CountingStub> stub = CountingStub::arm(*task_, site, countdown, nullptr, match);
  if (!stub) return std::nullopt;
  bool clash = counting_stub_ && stub->end() > counting_stub_->stub.addr() && counting_stub_->stub.end() > site;
  if (in_debuggee()) {
    auto it = traps_.breakpoints.lower_bound(site);
    clash = clash || (it != traps_.breakpoints.end() && *it < stub->end());
  }
  if (clash) {
    // A breakpoint of the user's in the code that would move (each of its
    // hits is reported), or the timeline's own stub there.
    stub->disarm(*task_);
    return std::nullopt;
  }
  return stub;
}

ReplaySession::StubExit ReplaySession::retire_position_stub(CountingStub& stub, const WaitStatus& ws,
                                                            const TrapFacts* facts) {
  StubExit exit;
  exit.sampled = facts && time_sample_reached(facts->si);
  exit.inside = !ws.is_gone() && stub.contains(task_->regs().ip());
  // Wherever it stopped, the thread leaves the stub before it goes.
  TimeSampler::Paused paused(time_sample_.get());
  std::vector<siginfo_t> ignored;  // replay's tracees get no signals but ours
  exit.trapped = !ws.is_gone() && stub.leave(*task_, ignored);
  exit.arrivals = stub.arrivals(*task_);
  try {
    stub.disarm(*task_);
  } catch (const std::runtime_error& e) {
    diverged(e.what());
  }
  return exit;
}

std::optional<ReplayStop> ReplaySession::run_to_counted_position(const trace::Event& next, bool single_step) {
  arm_watchpoints();  // first, as in run_to_event()
  event_number_ = next_number_;
  const Registers want = without_trap_flags(Registers::from_block(*next.regs));
  const uint64_t site = want.ip();
  const uint64_t target = next.position->arrivals;
  if (position_count_.event != next_number_) position_count_ = PositionCount{next_number_, 0, false};
  PositionCount& count = position_count_;
  const bool user_breakpoint_at_site = in_debuggee() && traps_.breakpoints.count(site) != 0;
  auto describe = [&] { return "arrival " + std::to_string(target) + " at " + hex(site); };

  for (;;) {
    Registers live = task_->regs();
    if (count.standing && live.ip() != site) count.standing = false;
    // At the site with its arrival not counted (where the previous event
    // left it, or an interrupt stopped it): the recorder's stub counted
    // it as the thread went on from there.
    if (live.ip() == site && !count.standing) {
      ++count.arrivals;
      count.standing = true;
    }
    if (count.standing && count.arrivals == target) {
      std::string differences = Registers::differences(want, without_trap_flags(live));
      if (!differences.empty()) {
        diverged("at the recorded position (" + describe() + ") the registers differ: " + differences);
      }
      task_->set_regs(without_trap_flags(live));
      position_count_ = PositionCount{};
      return std::nullopt;
    }
    if (count.arrivals >= target) diverged("went past the recorded position (" + describe() + ")");
    open_counters_for_run();
    const bool reported = breakpoint_reported_ && traps_.breakpoints.count(live.ip());
    // Standing at the site with its arrival counted: the stub counts it
    // again as the thread goes on, one more to count down. Stepping off
    // instead would never end in a loop that lies within the 5 bytes the
    // jump covers (`1: add %rcx,%rax; loop 1b`): each step off lands
    // inside them, and the next comes back to the site.
    const bool recount = count.standing && live.ip() == site && !reported && !single_step &&
                         !watching_in_software() && !user_breakpoint_at_site;
    bool step_off = !recount && ((count.standing && live.ip() == site) || reported);
    bool by_steps = single_step || step_off || watching_in_software();
    std::optional<CountingStub> stub;
    if (!by_steps) {
      stub = arm_position_stub(site, target - count.arrivals + (recount ? 1 : 0), nullptr);
      if (!stub && recount) {
        step_off = true;
        by_steps = true;
      } else if (stub && stub->patches(live.ip()) && live.ip() != site) {
        // It stands inside the code the jump covers (one step off the
        // site): steps until it is out.
        stub->disarm(*task_);
        stub.reset();
        by_steps = true;
      }
    }
    breakpoint_reported_ = false;
    insert_breakpoints();
    if (by_steps) {
      int3s_.remove(*task_, live.ip());
    }
    if (!by_steps && !stub) insert_breakpoint_at(site);

    WaitStatus ws;
    std::optional<Watchpoint> watch_hit;
    bool interrupted = false;
    if (by_steps && watching_in_software()) {
      SoftWatchStop soft = step_while_watching(/*one_step=*/true);
      ws = soft.status;
      watch_hit = soft.hit;
      interrupted = soft.interrupted;
    } else {
      task_->resume(by_steps ? ResumeHow::SysemuSingleStep : ResumeHow::Sysemu);
      ws = wait_for_stop();
    }
    remove_breakpoints();
    // Read now: leaving the stub and its injected munmap replace them.
    std::optional<TrapFacts> facts;
    if (ws.is_signal() && ws.signal == SIGTRAP) facts = trap_facts();
    bool trapped = false, sampled = false;
    if (stub) {
      StubExit exit = retire_position_stub(*stub, ws, facts ? &*facts : nullptr);
      trapped = exit.trapped;
      sampled = exit.sampled;
      uint64_t counted = exit.arrivals;
      if (recount && counted > 0) --counted;  // the arrival it stood at
      count.arrivals += counted;
      // Stopped inside the stub (an interrupt, a time sample), the thread
      // comes out at the site with that arrival counted, or past it.
      // Stopped outside it at the site, after at least one arrival (or any
      // where it did not stand counted there), it has not run the jump into
      // the stub yet: that arrival is still to count (the loop's top counts
      // it). Only a thread that has not moved since it stood counted there
      // stands so still.
      const bool at_site = task_->regs().ip() == site;
      if (trapped || (exit.inside && at_site)) {
        count.standing = true;
      } else if (at_site && !(recount && exit.arrivals == 0)) {
        count.standing = false;
      }
    }
    if (ws.requested || interrupted || sampled) {
      if (step_off && task_->regs().ip() == live.ip() && traps_.breakpoints.count(live.ip())) breakpoint_reported_ = true;
      return ReplayStop{ReplayStop::Kind::Interrupted};
    }
    if (ws.is_gone()) diverged("the program ended early: " + ws.describe());
    if (ws.is_syscall()) diverged("reached a system call before the recorded position (" + describe() + ")");
    if (ws.kind == WaitStatus::Kind::EventStop) diverged("unexpected ptrace event " + std::to_string(ws.event));
    if (trapped) continue;
    if (by_steps) {
      count.standing = false;
      if (task_->regs().ip() == site) {
        ++count.arrivals;
        count.standing = true;
      }
    }
    if (watch_hit) return watch_stop(*watch_hit);
    if (ws.signal != SIGTRAP) {
      diverged("expected the recorded position (" + describe() + "), got " + ws.describe() + " at rip " +
               hex(task_->regs().ip()));
    }
    Registers after = task_->regs();
    if (!by_steps && !stub && !user_breakpoint_at_site && after.ip() == site + 1 &&
        facts->int3()) {
      // Our own breakpoint at the site: one arrival.
      after.set_ip(site);
      task_->set_regs(after);
      ++count.arrivals;
      count.standing = true;
      continue;
    }
    ReplayStop trap;
    if (classify_trap(trap, by_steps ? TrapAfter::SingleStep : TrapAfter::Run, &*facts)) {
      if (trap.kind == ReplayStop::Kind::Breakpoint && task_->regs().ip() == site && !by_steps) {
        ++count.arrivals;  // the user's breakpoint at the site is an arrival too
        count.standing = true;
      }
      if (!single_step && trap.kind == ReplayStop::Kind::Step) continue;  // our step
      return trap;
    }
    diverged("an unexpected trap before the recorded position (" + describe() + ")");
  }
}

}  // namespace backstep
