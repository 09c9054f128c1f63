// Decoding single x86-64 instructions (LLVM's machine-code layer): how long
// an instruction is, and whether it can run somewhere else than where it
// stands. The recorder uses it to move the instructions after a patched
// `syscall` into the site's stub (syscall_stub.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace backstep::x86 {

enum class Placement {
  Anywhere,         // runs the same at any address
  RipRelative,      // one memory operand addressed from rip; no immediate
  RelativeJump,     // jmp, jcc, loop/loope/loopne or jrcxz with a rel8 or rel32 destination
  FixedControlFlow  // anything else that reads or changes rip: ret, call, indirect jumps, syscall...
};

struct Instruction {
  uint8_t length = 0;
  Placement placement = Placement::Anywhere;
  // RipRelative: the address the operand names, and where the disp32 that
  // names it lies in the instruction. RelativeJump: the destination.
  uint64_t target = 0;
  uint8_t displacement_at = 0;
  // RelativeJump: a jcc (its condition in `condition`, 0-15 as in 0x70+cc),
  // or a jmp; or, conditional too, one of the rcx jumps (`rcx_jump`: its
  // opcode, 0xe0 loopne, 0xe1 loope, 0xe2 loop, 0xe3 jrcxz), which have
  // no rel32 form: a copy does what they do with lea, jrcxz and a jmp,
  // leaving the flags alone.
  bool conditional = false;
  uint8_t condition = 0;
  uint8_t rcx_jump = 0;
  // A no-op (nop, the multi-byte nops of alignment padding, int3): never
  // part of the program's flow, whatever it jumps to.
  bool padding = false;
};

// The instruction at `code` (at most `len` bytes), which stands at `addr`;
// nullopt if the bytes are not a whole instruction the decoder knows.
std::optional<Instruction> decode(const uint8_t* code, std::size_t len, uint64_t addr);

// The length of the instruction at `code` (as decode() finds it, without
// the rest: the cheap way to walk code), or 0 where it knows none.
std::size_t instruction_length(const uint8_t* code, std::size_t len, uint64_t addr);

// Linear decoding of a code section's `size` bytes from its start (`addr`
// names where they lie: a file offset, an address): calls fn(at, length)
// for each instruction the decoder knows, at offset `at`; a byte it does not
// know is stepped over alone. How the recorder finds instructions to patch
// in the code it maps (tsc_sites.h, random_sites.h, cpuid_trap.h).
void for_each_instruction(const uint8_t* code, std::size_t size, uint64_t addr,
                          const std::function<void(std::size_t at, std::size_t length)>& fn);

// Whether the two bytes at `code` are a system call instruction: syscall
// (0f 05) or int 0x80 (cd 80), and sysenter (0f 34) where `sysenter`.
bool is_syscall_instruction(const uint8_t* code, bool sysenter);

// Whether a rel32 field of an instruction ending at `from_end` reaches
// `to`; appends the rel32 for it.
bool within_rel32(uint64_t from_end, uint64_t to);
void append_rel32(std::vector<uint8_t>& out, uint64_t from_end, uint64_t to);

// Moving an instruction that is not FixedControlFlow to another address:
// how long its copy is (a jmp or jcc becomes its rel32 form, an rcx jump a
// short sequence that ends with a rel32 jmp), whether the
// copy at `here` reaches what it names (rel32), and the copy itself,
// appended to `out` (`code` is the original's bytes).
std::size_t moved_length(const Instruction& insn);
bool reaches_from(const Instruction& insn, uint64_t here);
void append_moved(std::vector<uint8_t>& out, const Instruction& insn, const uint8_t* code, uint64_t here);

// Reads program memory: bytes read.
using ReadMemory = std::function<std::size_t(uint64_t addr, void* buf, std::size_t len)>;

// Calls `f(target)` for every place a direct jmp, jcc, loop/jrcxz or call
// in `code` (`n` bytes at address `at`) may land on, read as byte patterns
// at every offset (see below).
void for_each_direct_jump_target(const uint8_t* code, std::size_t n, uint64_t at,
                                 const std::function<void(uint64_t)>& f);

// Whether a direct jmp, jcc or call within `reach` bytes of `around` may
// land on one of `places`. Byte patterns, not decoding (the code before
// `around` cannot be decoded from an unknown start): a false alarm only
// means a false "yes".
bool may_be_jumped_into(const std::vector<uint64_t>& places, uint64_t around, uint64_t reach,
                        const ReadMemory& read);

}  // namespace backstep::x86
