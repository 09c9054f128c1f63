// Breakpoint hits counted by the kernel instead of stopped at
// (engine/core/hit_counter.h): a walk to the n-th hit of a breakpoint stops
// once, at that hit; a backward search counts the user's breakpoints over
// a stretch and stops only at its end.
#include <signal.h>

#include "values/log.h"
#include "engine/replay/replay_session.h"

namespace backstep {
namespace {

// The executions a counter opened now would count that an int3 walk would
// not: the one the pc stands on when its breakpoint hit was just reported
// (the int3 run steps over it; the debug register fires on it).
uint64_t stood_on(Task& task, uint64_t addr, bool reported) {
  if (!reported) return 0;
  return task.regs().ip() == addr ? 1 : 0;
}

// A counter's stop (or any debug exception on an execute breakpoint) leaves
// RF set so that the instruction can run; cleared, the next counter on the
// same address fires on it as an int3 would, and the registers the client
// sees are the same as after an int3 stop.
void clear_resume_flag(Task& task) {
  Registers regs = task.regs();
  if (regs.raw().eflags & kResumeFlag) {
    regs.raw().eflags &= ~kResumeFlag;
    task.set_regs(regs);
  }
}

}  // namespace

bool ReplaySession::set_counted_stop(uint64_t addr, uint64_t hits) {
  stop_counter_.reset();
  counted_stop_.reset();
  if (hits == 0 || !HitCounter::available()) return false;
  // Probe on the thread now current: a refusal (no free debug register)
  // is reported here, not in the middle of the run.
  std::string why;
  if (!HitCounter::open(task_->tid(), remote_ptr<void>(addr), 0, &why)) {
    BS_LOG(Replay, "counted stop at 0x" << std::hex << addr << " refused: " << why);
    return false;
  }
  counted_stop_ = CountedStop{addr, hits};
  return true;
}

bool ReplaySession::set_hit_counting(std::set<uint64_t> addrs) {
  hit_counters_.clear();
  counting_failed_ = false;
  counted_addrs_ = std::move(addrs);
  if (counted_addrs_.empty()) return true;
  if (!HitCounter::available()) {
    counted_addrs_.clear();
    return false;
  }
  open_counters_for_run();
  if (counting_failed_) {
    hit_counters_.clear();
    counted_addrs_.clear();
    return false;
  }
  return true;
}

std::vector<ReplaySession::HitCount> ReplaySession::hit_counts() const {
  std::vector<HitCount> out;
  for (const auto& [tid, t] : hit_counters_) {
    std::size_t i = 0;
    for (uint64_t addr : counted_addrs_) {
      uint64_t n = t.counters[i]->count();
      if (n > t.offsets[i]) out.push_back(HitCount{tid, addr, n - t.offsets[i]});
      ++i;
    }
  }
  return out;
}

void ReplaySession::open_counters_for_run() {
  if (!in_debuggee()) return;
  open_samplers_for_run();
  if (!counted_addrs_.empty() && !hit_counters_.count(current_tid_)) {
    ThreadCounters t;
    clear_resume_flag(*task_);
    for (uint64_t addr : counted_addrs_) {
      std::string why;
      std::unique_ptr<HitCounter> c = HitCounter::open(task_->tid(), remote_ptr<void>(addr), 0, &why);
      if (!c) {
        // Out of debug registers on this thread: the caller asked for
        // counts it cannot have; hit_counts() would be wrong.
        BS_LOG(Replay, "counting 0x" << std::hex << addr << " refused: " << why);
        counting_failed_ = true;
        return;
      }
      t.offsets.push_back(stood_on(*task_, addr, breakpoint_reported_));
      t.counters.push_back(std::move(c));
    }
    hit_counters_.emplace(current_tid_, std::move(t));
  }
  if (counted_stop_ && !stop_counter_) {
    clear_resume_flag(*task_);
    uint64_t extra = stood_on(*task_, counted_stop_->addr, breakpoint_reported_);
    std::string why;
    stop_counter_ = HitCounter::open(task_->tid(), remote_ptr<void>(counted_stop_->addr), counted_stop_->hits + extra,
                                     &why);
    if (!stop_counter_) diverged("a counted stop the kernel took a moment ago is refused now: " + why);
  }
}

bool ReplaySession::counted_stop_reached(ReplayStop& stop, const siginfo_t& si) {
  if (!stop_counter_) return false;
  if (!stop_counter_->is_stop(si)) return false;
  uint64_t addr = stop_counter_->addr().as_int();
  stop_counter_.reset();
  counted_stop_.reset();
  clear_resume_flag(*task_);
  BS_ASSERT(task_->regs().ip() == addr, "a counted stop at 0x" << std::hex << addr << " stopped at 0x"
                                                                << task_->regs().ip());
  stop.kind = ReplayStop::Kind::Breakpoint;
  stop.address = addr;
  breakpoint_reported_ = true;
  return true;
}

}  // namespace backstep
