// Watchpoints where the debug registers do nothing. Some hypervisors let a
// guest set debug registers and never trigger them (this machine's does:
// HitCounter::debug_registers_work). There, while a watchpoint is set in
// the debugged process, the program runs by single steps, and a step after
// which a watched range holds other bytes is a write: what gdb reports for
// `watch` anyway (a write of the same value is no change). About 20-40 us
// an instruction instead of the program's speed.
// Reads (rwatch, awatch) are seen by decoding each instruction before it
// runs (x86_memory_access.h): one that reads a watched range and leaves
// its bytes as they were is a read. A step that changes them is a write,
// which `rwatch` does not report (rr's rule, as with debug registers,
// replay_traps.cc). The decoding is done only while such a watchpoint is
// set.
#include <signal.h>

#include "engine/core/hit_counter.h"
#include "engine/core/x86_memory_access.h"
#include "engine/replay/replay_session.h"

namespace backstep {
namespace {

// How many steps between two looks at the client's interrupt.
constexpr uint64_t kStepsPerPoll = 256;
// The longest x86 instruction.
constexpr std::size_t kMaxInstruction = 15;

}  // namespace

bool ReplaySession::watching_in_software() const {
  return !traps_.watchpoints.empty() && in_debuggee() && !HitCounter::debug_registers_work();
}

std::vector<x86::MemoryAccess> ReplaySession::next_instruction_accesses() {
  Registers regs = task_->regs();
  std::vector<uint8_t> code = read_memory(regs.ip(), kMaxInstruction);  // int3s of the run hidden
  std::optional<std::vector<x86::MemoryAccess>> a = x86::memory_accesses(code.data(), code.size(), regs);
  return a ? std::move(*a) : std::vector<x86::MemoryAccess>{};
}

std::optional<Watchpoint> ReplaySession::watch_hit(std::vector<std::vector<uint8_t>>& before,
                                                   const std::vector<x86::MemoryAccess>& accesses) {
  std::optional<Watchpoint> hit;
  for (std::size_t i = 0; i < traps_.watchpoints.size(); ++i) {
    const Watchpoint& w = traps_.watchpoints[i];
    std::vector<uint8_t> now = read_memory(w.addr, w.len);
    bool changed = now != before[i];
    bool read = w.kind != WatchKind::Write && x86::reads_range(accesses, w.addr, w.len);
    bool reported = w.kind == WatchKind::Write ? changed : w.kind == WatchKind::Read ? read && !changed : changed || read;
    if (reported && !hit) hit = w;
    // A read watchpoint's range written: the steps after it compare with
    // the new bytes.
    if (changed) before[i] = std::move(now);
  }
  return hit;
}

ReplaySession::SoftWatchStop ReplaySession::step_while_watching(bool one_step) {
  SoftWatchStop out;
  std::vector<std::vector<uint8_t>> before = watched_values();
  const bool reads = watches_reads();
  for (uint64_t steps = 1;; ++steps) {
    std::vector<x86::MemoryAccess> accesses;
    if (reads) accesses = next_instruction_accesses();
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
    if (std::optional<Watchpoint> hit = watch_hit(before, accesses)) {
      task_->set_debug_register(6, 0);
      out.hit = hit;
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
