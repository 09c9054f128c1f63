#include "engine/core/time_sampler.h"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "engine/core/perf_sigtrap.h"

namespace backstep {
namespace {

// Tells this process's samplers' stops from any other SIGTRAP (and from
// HitCounter's, whose cookies start 0xb5c0...).
constexpr uint64_t kCookieBase = 0xb5c1'0000'0000'0000ull;
constexpr uint64_t kCookieMask = 0xffff'0000'0000'0000ull;
std::atomic<uint64_t> next_cookie{1};

int open_event(pid_t tid, uint64_t stop_after_ns, uint64_t cookie) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  return open_perf_sigtrap(attr, tid, stop_after_ns, cookie);
}

}  // namespace

std::unique_ptr<TimeSampler> TimeSampler::open(pid_t tid, uint64_t stop_after_ns, std::string* why) {
  uint64_t cookie = kCookieBase | next_cookie.fetch_add(1);
  int fd = open_event(tid, stop_after_ns, cookie);
  if (fd < 0) {
    if (why) *why = std::string("perf_event_open (task clock): ") + std::strerror(errno);
    return nullptr;
  }
  return std::unique_ptr<TimeSampler>(new TimeSampler(fd, cookie));
}

TimeSampler::~TimeSampler() { ::close(fd_); }

void TimeSampler::pause() { ::ioctl(fd_, PERF_EVENT_IOC_DISABLE, 0); }

void TimeSampler::unpause() { ::ioctl(fd_, PERF_EVENT_IOC_ENABLE, 0); }

uint64_t TimeSampler::elapsed_ns() const {
  uint64_t n = 0;
  if (::read(fd_, &n, sizeof n) != static_cast<ssize_t>(sizeof n)) return 0;
  return n;
}

uint64_t TimeSampler::cookie_of(const siginfo_t& si) {
  std::optional<uint64_t> data = perf_sigtrap_data(si);
  return data && (*data & kCookieMask) == kCookieBase ? *data : 0;
}

bool TimeSampler::is_stop(const siginfo_t& si) const { return cookie_of(si) == cookie_; }

bool TimeSampler::available() {
  // A sampling event on this thread, opened and closed at once: the
  // sigtrap attribute is what older kernels refuse.
  static const bool ok = [] {
    std::string why;
    return open(0, kMinPeriodNs * 1000, &why) != nullptr;
  }();
  return ok;
}

}  // namespace backstep
