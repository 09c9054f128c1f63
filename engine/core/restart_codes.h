// The kernel's internal restart codes (include/linux/errno.h, not in the
// uapi headers): a system call that a signal interrupted before it did
// anything returns one of them, negated, and the kernel restarts it (or
// makes it EINTR) as the signal is delivered. A tracer sees them at the
// stops in between.
#pragma once

#include <cstdint>

namespace backstep {

constexpr int64_t kErestartSys = 512;
constexpr int64_t kErestartNoIntr = 513;
constexpr int64_t kErestartNoHand = 514;
constexpr int64_t kErestartRestartblock = 516;

// Whether `ret` (a system call's result) is -ERESTART*.
constexpr bool is_restart_code(int64_t ret) {
  return ret == -kErestartSys || ret == -kErestartNoIntr || ret == -kErestartNoHand || ret == -kErestartRestartblock;
}

}  // namespace backstep
