// The SIGTRAP a perf event opened with `sigtrap` sends its thread
// (si_code TRAP_PERF): its si_perf_data is the event's `sig_data`, a
// cookie that tells one event's stops from any other's (HitCounter,
// TimeSampler).
#pragma once

#include <signal.h>

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

}  // namespace backstep
