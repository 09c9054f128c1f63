#include "engine/core/tsc_clock.h"

#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <optional>

#include "preload/preload_interface.h"

namespace backstep {
namespace {

// Ticks per nanosecond (32.32) from the kernel's own conversion of the
// counter into perf time (ns = ticks * time_mult >> time_shift), where the
// page of a perf event offers it (cap_user_time).
std::optional<uint64_t> kernel_rate() {
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_DUMMY;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
  if (fd < 0) return std::nullopt;
  long page = sysconf(_SC_PAGESIZE);
  void* map = mmap(nullptr, static_cast<std::size_t>(page), PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (map == MAP_FAILED) return std::nullopt;
  const auto* info = static_cast<const perf_event_mmap_page*>(map);
  std::optional<uint64_t> rate;
  if (info->cap_user_time && info->time_mult != 0 && info->time_shift < 32) {
    // ticks per ns = 2^shift / mult.
    rate = static_cast<uint64_t>((static_cast<unsigned __int128>(1) << (32 + info->time_shift)) / info->time_mult);
  }
  munmap(map, static_cast<std::size_t>(page));
  return rate;
}

// The same, measured: the counter and the clock over a few milliseconds.
uint64_t measured_rate() {
  constexpr uint64_t kSpanNs = 4'000'000;
  uint64_t ns0 = monotonic_raw_ns(), t0 = __rdtsc();
  uint64_t ns1 = ns0, t1 = t0;
  while (ns1 - ns0 < kSpanNs) {
    ns1 = monotonic_raw_ns();
    t1 = __rdtsc();
  }
  return static_cast<uint64_t>((static_cast<unsigned __int128>(t1 - t0) << 32) / (ns1 - ns0));
}

TscClock make_clock() {
  TscClock c;
  c.mult = kernel_rate().value_or(0);
  if (c.mult == 0) c.mult = measured_rate();
  c.base_ns = monotonic_raw_ns();
  c.base = __rdtsc();
  return c;
}

}  // namespace

uint64_t monotonic_raw_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

const TscClock& TscClock::recording() {
  static const TscClock clock = make_clock();
  return clock;
}

uint64_t TscClock::now() const { return bs_tsc_from_ns(base, base_ns, mult, monotonic_raw_ns()); }

}  // namespace backstep
