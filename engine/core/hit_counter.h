// Counting a thread's executions of one instruction in the kernel, without
// a ptrace stop per execution (shared/notes/counterless-progress.md §1): a
// perf hardware execute breakpoint on the thread, counted by the kernel,
// and with a stop count it also stops the thread (SIGTRAP, si_code
// TRAP_PERF) right before the n-th execution, as an int3 there would.
//
// Here each hit costs ~5 us (bench/reverse.py hits; the debug exception is
// a VM exit) against ~70 us for an int3 the tracer sees, steps over and
// puts back. It needs a free debug register and perf events for the
// tracer; where they are missing open() says why and the caller goes on
// with int3 stops.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "engine/core/remote_ptr.h"

namespace backstep {

class HitCounter {
 public:
  // Counts executions of the instruction at `addr` by thread `tid` (which
  // must be stopped). With `stop_at` > 0 the thread also stops, with a
  // SIGTRAP that is_stop() recognises, before the stop_at-th execution
  // counted from now. Returns null and sets `*why` when the kernel refuses.
  static std::unique_ptr<HitCounter> open(pid_t tid, remote_ptr<void> addr, uint64_t stop_at, std::string* why);
  ~HitCounter();
  HitCounter(const HitCounter&) = delete;
  HitCounter& operator=(const HitCounter&) = delete;

  // Executions counted since open().
  uint64_t count() const;
  // Whether a SIGTRAP the thread stopped with is this counter's stop.
  bool is_stop(const siginfo_t& si) const;
  remote_ptr<void> addr() const { return addr_; }

  // Whether counting in the kernel works on this machine, probed once (on
  // the calling process itself); the first refusal's reason is logged once
  // to stderr by callers through note_unavailable().
  static bool available();
  // Whether this machine's debug registers fire at all: some hypervisors
  // accept hardware breakpoints and watchpoints and never trigger them
  // (probed once, with a perf execute breakpoint on this process).
  static bool debug_registers_work();
  // Says once per process, on stderr, why positions are walked with a stop
  // per breakpoint hit instead.
  static void note_unavailable(const std::string& why);
  // BACKSTEP_KERNEL_COUNTING=0 turns counting off (the timeline then walks
  // every hit with ptrace, as before; tests compare the two).
  static bool enabled();

 private:
  HitCounter(int fd, remote_ptr<void> addr, uint64_t cookie) : fd_(fd), addr_(addr), cookie_(cookie) {}
  int fd_;
  remote_ptr<void> addr_;
  uint64_t cookie_;
};

}  // namespace backstep
