#include "engine/core/hit_counter.h"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>

#include "values/log.h"
#include "engine/core/perf_sigtrap.h"

namespace backstep {
namespace {

// Tells this process's counters' stops from any other SIGTRAP.
constexpr uint64_t kCookieBase = 0xb5c0'0000'0000'0000ull;
std::atomic<uint64_t> next_cookie{1};


int open_event(pid_t tid, uint64_t addr, uint64_t stop_at, uint64_t cookie) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_BREAKPOINT;
  attr.bp_type = HW_BREAKPOINT_X;
  attr.bp_addr = addr;
  attr.bp_len = sizeof(long);
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return open_perf_sigtrap(attr, tid, stop_at, cookie);
}

__attribute__((noinline)) void probe_target() { asm volatile("" ::: "memory"); }

}  // namespace

std::unique_ptr<HitCounter> HitCounter::open(pid_t tid, remote_ptr<void> addr, uint64_t stop_at, std::string* why) {
  uint64_t cookie = kCookieBase | next_cookie.fetch_add(1);
  int fd = open_event(tid, addr.as_int(), stop_at, cookie);
  if (fd < 0) {
    if (why) *why = std::string("perf_event_open (hardware execute breakpoint): ") + std::strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<HitCounter>(new HitCounter(fd, addr, cookie));
}

HitCounter::~HitCounter() { ::close(fd_); }

uint64_t HitCounter::count() const {
  uint64_t n = 0;
  if (::read(fd_, &n, sizeof n) != static_cast<ssize_t>(sizeof n)) return 0;
  return n;
}

bool HitCounter::is_stop(const siginfo_t& si) const { return perf_sigtrap_data(si) == cookie_; }

bool HitCounter::available() {
  static const bool ok = [] {
    std::string why;
    auto c = open(0, remote_ptr<void>(reinterpret_cast<uint64_t>(&probe_target)), 0, &why);
    if (!c) {
      note_unavailable(why);
      return false;
    }
    // Counting would find no hit at all where the breakpoint never fires.
    // The results are the same with a stop per hit, only slower, so this
    // is logged, not said.
    if (!debug_registers_work()) {
      BS_LOG(Core, "hardware breakpoints do not fire on this machine: breakpoint hits are not counted");
      return false;
    }
    return true;
  }();
  return ok;
}

bool HitCounter::debug_registers_work() {
  static const bool work = [] {
    auto c = open(0, remote_ptr<void>(reinterpret_cast<uint64_t>(&probe_target)), 0, nullptr);
    if (!c) return true;  // refused: cannot tell, and the callers that need it ask open() anyway
    constexpr uint64_t kProbeCalls = 3;
    for (uint64_t i = 0; i < kProbeCalls; ++i) probe_target();
    return c->count() == kProbeCalls;
  }();
  return work;
}

void HitCounter::note_unavailable(const std::string& why) {
  static std::once_flag said;
  std::call_once(said, [&] {
    std::cerr << "backstep: breakpoint hits are not counted in the kernel here (" << why
              << "); reverse execution stops at every hit instead (slower, same results)\n";
  });
}

bool HitCounter::enabled() {
  static const bool on = [] {
    const char* v = std::getenv("BACKSTEP_KERNEL_COUNTING");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on && available();
}

}  // namespace backstep
