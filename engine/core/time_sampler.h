// A thread's own CPU time, measured and cut in the kernel: a software perf
// event (task clock) on the thread counts the time it runs, and with a
// sample period it also stops the thread (SIGTRAP, si_code TRAP_PERF) once
// that much of its CPU time has passed, wherever it is in user code.
//
// Where the thread stops is not reproducible (the same span of CPU time
// covers more or fewer instructions from one run to the next): the timeline
// uses such stops only to leave checkpoints somewhere inside a long stretch
// without events or breakpoint hits, named by their state (a State anchor,
// engine/timeline/mark.h), and then finds exact positions from them
// (engine/timeline/timeline_approach.cc). The kernel runs a task clock's
// samples from an hrtimer, at least 10 us apart.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

namespace backstep {

class TimeSampler {
 public:
  // The kernel's shortest sample period for a task clock.
  static constexpr uint64_t kMinPeriodNs = 10'000;

  // Measures thread `tid`'s CPU time from now (it must be stopped); with
  // `stop_after_ns` > 0 it also stops once that much has passed (no
  // sooner than kMinPeriodNs). Null with `*why` set when the kernel refuses.
  static std::unique_ptr<TimeSampler> open(pid_t tid, uint64_t stop_after_ns, std::string* why);
  ~TimeSampler();
  TimeSampler(const TimeSampler&) = delete;
  TimeSampler& operator=(const TimeSampler&) = delete;

  // The thread's CPU time since open(), in ns.
  uint64_t elapsed_ns() const;
  // Stops counting (and stopping) while the tracer makes the thread run
  // code of its own (an injected system call), and goes on after.
  void pause();
  void unpause();
  class Paused {
   public:
    explicit Paused(TimeSampler* s) : s_(s) {
      if (s_) s_->pause();
    }
    ~Paused() {
      if (s_) s_->unpause();
    }
    Paused(const Paused&) = delete;
    Paused& operator=(const Paused&) = delete;

   private:
    TimeSampler* s_;
  };
  // Whether a SIGTRAP the thread stopped with is this sampler's stop.
  bool is_stop(const siginfo_t& si) const;
  uint64_t cookie() const { return cookie_; }
  // The cookie of any TimeSampler's stop, or 0 for any other signal.
  static uint64_t cookie_of(const siginfo_t& si);

  // Whether task-clock stops work here (perf events for the tracer and a
  // kernel with sigtrap, 5.13 or later), probed once on this process.
  static bool available();

 private:
  TimeSampler(int fd, uint64_t cookie) : fd_(fd), cookie_(cookie) {}
  int fd_;
  uint64_t cookie_;
};

}  // namespace backstep
