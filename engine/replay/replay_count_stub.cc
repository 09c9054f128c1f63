// The timeline's counting stub (engine/core/counting_stub.h) in the replayed
// process: without a hardware counter, the timeline counts the passes of the
// last stretch before a hit (timeline_approach.cc): with a debug register
// each costs a debug exception (~4.5 us here, a VM exit), with the stub
// about a nanosecond. Only a copy the timeline throws away runs it; at its
// stop, disarm_counting_stub() puts the code back, unmaps the pages and puts
// the thread where the stub found it, so that the copy can become a
// checkpoint.
#include "values/log.h"
#include "engine/replay/replay_session.h"

namespace backstep {

bool ReplaySession::arm_counting_stub(uint64_t addr, uint64_t stop_at, const std::set<uint64_t>& breakpoints) {
  BS_ASSERT(!counting_stub_, "a counting stub is armed already at 0x" << std::hex << counting_stub_->stub.addr());
  // The thread that runs next (the next event's), which may not be the one
  // whose event came last (task_ until the run switches to it): its pc and
  // whether its breakpoint was just reported say what the stub counts.
  uint32_t runs = next_thread();
  if (!has_thread(runs)) return false;
  Task& runner = thread_task(runs);
  bool reported = runs == current_tid_ ? breakpoint_reported_ : threads_.at(runs).breakpoint_reported;
  const uint64_t ip = runner.regs().ip();
  // An execution the pc stands on after a reported breakpoint is not counted.
  uint64_t offset = reported && ip == addr ? 1 : 0;
  TimeSampler::Paused paused(time_sample_.get());
  std::optional<CountingStub> stub =
      CountingStub::arm(runner, addr, stop_at ? stop_at + offset : CountingStub::kNoStop);
  if (!stub) return false;
  // A breakpoint inside the moved instructions would move with them, and a
  // thread that stands inside them (past `addr`) would run the jump's
  // bytes from their middle.
  bool refused = stub->patches(ip) && ip != addr;
  for (uint64_t b : breakpoints) refused = refused || (b > addr && stub->patches(b));
  if (refused) {
    stub->disarm(runner);
    return false;
  }
  counting_stub_ = ArmedStub{std::move(*stub), offset, false};
  return true;
}

bool ReplaySession::counting_stub_possible(uint64_t addr) {
  std::optional<uint64_t> end = CountingStub::patched_end(*task_, addr);
  if (!end) return false;
  // Not over the code that the stub for the next event, a position,
  // patches (counted: replay_counted_position.cc; by digest, a stub that
  // matches registers: replay_position.cc): sharing none, both count at
  // the program's speed; over it, the position would be counted (or
  // searched) with a breakpoint trap per arrival, tens of millions of them.
  const trace::Event* next = peek_next();
  if (next && next->kind == trace::EventKind::Position && next->position && next->regs) {
    uint64_t site = Registers::from_block(*next->regs).ip();
    uint64_t site_end = CountingStub::patched_end(*task_, site).value_or(site + 1);
    if (addr < site_end && site < *end) return false;
  }
  return true;
}

uint64_t ReplaySession::counting_stub_count() {
  if (!counting_stub_) return 0;
  uint64_t arrivals = counting_stub_->stub.arrivals(*task_);
  return arrivals > counting_stub_->offset ? arrivals - counting_stub_->offset : 0;
}

bool ReplaySession::counting_stub_reached() {
  if (!counting_stub_ || !counting_stub_->stub.trapped_at(task_->regs().ip())) return false;
  counting_stub_->trapped = true;
  return true;
}

void ReplaySession::disarm_counting_stub() {
  if (!counting_stub_) return;
  ArmedStub armed = std::move(*counting_stub_);
  counting_stub_.reset();
  if (armed.trapped) {
    // Before the execution the countdown stopped at, every register as
    // there (rcx restored before the trap).
    Registers regs = task_->regs();
    regs.set_ip(armed.stub.addr());
    task_->set_regs(regs);
    breakpoint_reported_ = true;
  }
  TimeSampler::Paused paused(time_sample_.get());
  try {
    armed.stub.disarm(*task_);
  } catch (const std::runtime_error& e) {
    diverged(e.what());
  }
}

}  // namespace backstep
