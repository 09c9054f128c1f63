// The memory one x86-64 instruction reads and writes, computed from its
// bytes and the registers before it runs (LLVM's machine-code layer, as in
// x86_decoder.h). Replay uses it to see reads while it single-steps with a
// read or access watchpoint set where the debug registers do nothing
// (replay_soft_watch.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "values/registers.h"

namespace backstep::x86 {

// One range an instruction touches: [addr, addr + len).
struct MemoryAccess {
  uint64_t addr = 0;
  uint64_t len = 0;
  bool read = false;
  bool write = false;
  bool operator==(const MemoryAccess&) const = default;
};

// What the instruction at `code` (at most `len` bytes; it stands at
// regs.ip()) accesses when it runs with `regs`: its memory operand
// (base + index * scale + displacement, rip-relative, with the fs or gs
// base), the stack for push, pop, call, ret and leave, and [rsi] and [rdi]
// for the string instructions. A repeated string instruction touches one
// element per iteration, and a single step runs one iteration: the ranges
// are those of the next element (none when rcx is 0). Sizes come from the
// operand's type; where LLVM gives none (fxsave, xrstor and such) a bound
// large enough for the area is used. Operands that name no general
// register address (a gather's vector index) are left out. nullopt: the
// bytes are not an instruction the decoder knows.
std::optional<std::vector<MemoryAccess>> memory_accesses(const uint8_t* code, std::size_t len, const Registers& regs);

// Whether the instruction reads any byte of [addr, addr + len).
bool reads_range(const std::vector<MemoryAccess>& accesses, uint64_t addr, uint64_t len);

}  // namespace backstep::x86
