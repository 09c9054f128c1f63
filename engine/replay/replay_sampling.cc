// The running thread's CPU time, measured and cut by the kernel
// (engine/core/time_sampler.h): the timeline's way to stop a replay
// somewhere inside a long stretch without events or breakpoint hits
// (engine/timeline/timeline_approach.cc). A time sample's stop is
// Interrupted, like a debugger's interrupt: where it falls is not
// reproducible, so the timeline names it by its state.
#include <signal.h>

#include <algorithm>

#include "values/log.h"
#include "engine/replay/replay_session.h"

namespace backstep {

bool ReplaySession::start_run_clock(uint32_t tid) {
  run_clock_.reset();
  run_clock_tid_ = tid;
  run_clock_wanted_ = TimeSampler::available();
  return run_clock_wanted_;
}

void ReplaySession::stop_run_clock() {
  run_clock_.reset();
  run_clock_wanted_ = false;
  run_clock_tid_ = 0;
}

uint64_t ReplaySession::run_time_ns() const { return run_clock_ ? run_clock_->elapsed_ns() : 0; }

void ReplaySession::close_time_sample() {
  time_sample_.reset();
  time_sample_after_ = 0;
  // Its stop may still come late (Task drops it).
  if (sampled_task_ && sampled_task_->alive()) sampled_task_->expect_time_sample(0);
  sampled_task_ = nullptr;
}

bool ReplaySession::set_time_sample(uint64_t after_ns) {
  close_time_sample();
  if (after_ns == 0) return true;
  if (!TimeSampler::available()) return false;
  time_sample_after_ = std::max(after_ns, TimeSampler::kMinPeriodNs);
  return true;
}

void ReplaySession::open_samplers_for_run() {
  std::string why;
  // Only on the thread the clock was started for: the timeline times the
  // stretch up to a hit of that thread's.
  const bool clocked = !run_clock_wanted_ || current_tid_ == run_clock_tid_;
  if (run_clock_wanted_ && !run_clock_ && clocked) {
    run_clock_ = TimeSampler::open(task_->tid(), 0, &why);
    if (!run_clock_) diverged("the task clock the kernel gave a moment ago is refused now: " + why);
  }
  if (time_sample_after_ && !time_sample_ && clocked) {
    time_sample_ = TimeSampler::open(task_->tid(), time_sample_after_, &why);
    if (!time_sample_) diverged("the task clock the kernel gave a moment ago is refused now: " + why);
    sampled_task_ = task_;
    task_->expect_time_sample(time_sample_->cookie());
  }
}

bool ReplaySession::time_sample_reached() { return time_sample_ && time_sample_reached(task_->siginfo()); }

bool ReplaySession::time_sample_reached(const siginfo_t& si) {
  if (!time_sample_ || !time_sample_->is_stop(si)) return false;
  close_time_sample();
  return true;
}

}  // namespace backstep
