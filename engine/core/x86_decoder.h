// Decoding single x86-64 instructions (LLVM's machine-code layer): how long
// an instruction is, and whether it can run somewhere else than where it
// stands. The recorder uses it to move the instructions after a patched
// `syscall` into the site's stub (syscall_stub.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace backstep::x86 {

enum class Placement {
  Anywhere,         // runs the same at any address
  RipRelative,      // one memory operand addressed from rip; no immediate
  RelativeJump,     // jmp or jcc with a rel8 or rel32 destination
  FixedControlFlow  // anything else that reads or changes rip: ret, call, loop, indirect jumps, syscall...
};

struct Instruction {
  uint8_t length = 0;
  Placement placement = Placement::Anywhere;
  // RipRelative: the address the operand names, and where the disp32 that
  // names it lies in the instruction. RelativeJump: the destination.
  uint64_t target = 0;
  uint8_t displacement_at = 0;
  // RelativeJump: a jcc (its condition in `condition`, 0-15 as in 0x70+cc),
  // or a jmp.
  bool conditional = false;
  uint8_t condition = 0;
  // A no-op (nop, the multi-byte nops of alignment padding, int3): never
  // part of the program's flow, whatever it jumps to.
  bool padding = false;
};

// The instruction at `code` (at most `len` bytes), which stands at `addr`;
// nullopt if the bytes are not a whole instruction the decoder knows.
std::optional<Instruction> decode(const uint8_t* code, std::size_t len, uint64_t addr);

}  // namespace backstep::x86
