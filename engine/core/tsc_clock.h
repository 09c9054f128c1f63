// The time-stamp counter the recorder gives a program where the kernel
// makes rdtsc fault (PR_TSC_SIGSEGV). The preload library cannot read the
// real counter there (its own rdtsc would fault too), so a patched site's
// value is made from CLOCK_MONOTONIC_RAW, which the library reads with one
// untraced system call (preload/tsc_call.c); the recorder makes each value
// it gives a trapped read the same way, so that the two kinds of reads
// agree with each other: one clock, monotonic across threads and
// processes, ticking at the real counter's rate from the real counter's
// value when the recording began.
#pragma once

#include <cstdint>

namespace backstep {

struct TscClock {
  uint64_t base = 0;     // the real counter at base_ns
  uint64_t base_ns = 0;  // CLOCK_MONOTONIC_RAW
  uint64_t mult = 0;     // counter ticks per nanosecond, 32.32 fixed point

  // The one clock of this backstep process: the rate is the kernel's own
  // calibration of the counter where a perf event page tells it, or else
  // measured against the clock for a few milliseconds, once.
  static const TscClock& recording();
  // The counter now.
  uint64_t now() const;
};

// CLOCK_MONOTONIC_RAW now, in nanoseconds.
uint64_t monotonic_raw_ns();

}  // namespace backstep
