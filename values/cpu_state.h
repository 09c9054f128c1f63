// Plain values for CPU state that the engine and the trace both speak of:
// the general registers as the kernel's `user_regs_struct` words, a change to
// one of them, and a CPUID leaf. They live in values/, below the engine, so
// that core never includes the trace schema; the schema
// (engine/trace/event.h) re-exports them as trace::RegBlock etc.
//
// This is the one header of ours that engine/trace includes
// (tests/check_layering.py), so it keeps to the standard library: the trace
// links nothing of core.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace backstep {

// x86-64 `struct user_regs_struct`, word for word (27 words, kernel order).
inline constexpr std::size_t kRegWords = 27;
using RegBlock = std::array<uint64_t, kRegWords>;

// One register changed by an event: index into RegBlock, new value.
struct RegChange {
  uint8_t index = 0;
  uint64_t value = 0;
  bool operator==(const RegChange&) const = default;
};

// One CPUID leaf as seen by the recording machine.
struct CpuidLeaf {
  uint32_t leaf = 0, subleaf = 0;
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
  bool operator==(const CpuidLeaf&) const = default;
};

}  // namespace backstep
