// The SIGTRAP a perf event opened with `sigtrap` sends its thread
// (si_code TRAP_PERF): its si_perf_data is the event's `sig_data`, a
// cookie that tells one event's stops from any other's (HitCounter,
// TimeSampler).
#pragma once

#include <linux/perf_event.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <optional>

namespace backstep {

inline std::optional<uint64_t> perf_sigtrap_data(const siginfo_t& si) {
#ifndef TRAP_PERF
  constexpr int kTrapPerf = 6;
#else
  constexpr int kTrapPerf = TRAP_PERF;
#endif
  if (si.si_signo != SIGTRAP || si.si_code != kTrapPerf) return std::nullopt;
  // After si_addr in the fault part of the union (the kernel's siginfo
  // layout; older C libraries do not name the field).
  constexpr std::size_t kPerfDataOffset = 24;
  uint64_t data = 0;
  std::memcpy(&data, reinterpret_cast<const char*>(&si) + kPerfDataOffset, sizeof data);
  return data;
}

// Opens `attr` (type and config set) on thread `tid`; with `period` > 0
// the event also stops the thread, with a SIGTRAP carrying `cookie`, each
// time `period` more is counted. The descriptor, or -1 with errno.
inline int open_perf_sigtrap(perf_event_attr& attr, pid_t tid, uint64_t period, uint64_t cookie) {
  attr.size = sizeof attr;
  if (period > 0) {
    attr.sample_period = period;
    attr.sigtrap = 1;
    attr.remove_on_exec = 1;  // sigtrap requires it
    attr.sig_data = cookie;
  }
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

}  // namespace backstep
