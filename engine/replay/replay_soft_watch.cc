// Watchpoints where the debug registers do nothing. Some hypervisors let a
// guest set debug registers and never trigger them (this machine's does:
// HitCounter::debug_registers_work). There, while a watchpoint is set in
// the debugged process, the program runs by single steps, and a step after
// which a watched range holds other bytes is the watchpoint's hit: what
// gdb reports for `watch` anyway (a write of the same value is no change).
// About 20-40 us an instruction instead of the program's speed; a read
// (rwatch, awatch without a change) is not seen.
#include <signal.h>

#include "engine/core/hit_counter.h"
#include "engine/replay/replay_session.h"

namespace backstep {
namespace {

// How many steps between two looks at the client's interrupt.
constexpr uint64_t kStepsPerPoll = 256;

}  // namespace

bool ReplaySession::watching_in_software() const {
  return !traps_.watchpoints.empty() && in_debuggee() && !HitCounter::debug_registers_work();
}

ReplaySession::SoftWatchStop ReplaySession::step_while_watching(bool one_step) {
  SoftWatchStop out;
  std::vector<std::vector<uint8_t>> before = watched_values();
  for (uint64_t steps = 1;; ++steps) {
    task_->resume(ResumeHow::SysemuSingleStep);
    out.status = wait_for_stop();
    const WaitStatus& ws = out.status;
    // A call, a fault, an int3 (si_code SI_KERNEL), a requested stop: what
    // a run would have stopped at too. Any other SIGTRAP is the step's
    // (where the debug registers do nothing, DR6 may not say BS, and the
    // kernel then reports TRAP_BRKPT: classify_trap's rule too).
    if (ws.requested || !ws.is_signal() || ws.signal != SIGTRAP || task_->siginfo().si_code == SI_KERNEL) {
      // The steps before left DR6's single-step bit set: classify_trap
      // would take an int3 for one more step.
      if (steps > 1) task_->set_debug_register(6, 0);
      return out;
    }
    uint64_t addr = 0;
    if (watched_range_changed(before, addr)) {
      task_->set_debug_register(6, 0);
      out.changed = addr;
      return out;
    }
    if (one_step) return out;
    if (interrupt_poll_ && steps % kStepsPerPoll == 0 && interrupt_poll_()) {
      task_->set_debug_register(6, 0);
      out.interrupted = true;
      return out;
    }
  }
}

}  // namespace backstep
