// LLVM's x86-64 disassembler and the tables that describe its instructions,
// shared by the two decoders of engine/core: x86_decoder.cc (lengths and
// placements) and x86_memory_access.cc (the memory an instruction touches).
// Private to those sources: no header outside engine/core's .cc files
// includes it, so LLVM stays out of every other target's includes.
#pragma once

#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace backstep::x86 {

class Llvm {
 public:
  // Built on first use (a recording that never decodes never pays for it).
  static const Llvm& get();
  ~Llvm();

  // The instruction at `code` (at most `len` bytes), standing at `addr`,
  // and its length; false if the bytes are not one the decoder knows.
  bool disassemble(const uint8_t* code, std::size_t len, uint64_t addr, llvm::MCInst& inst, uint64_t& size) const;
  // Intel syntax, which names the size of a memory operand ("dword ptr").
  std::string intel_text(const llvm::MCInst& inst, uint64_t addr) const;

  const llvm::MCInstrInfo& instructions() const { return *instructions_; }
  const llvm::MCRegisterInfo& registers() const { return *registers_; }
  unsigned rip() const { return rip_; }

 private:
  Llvm();
  struct Parts;
  std::unique_ptr<Parts> parts_;
  const llvm::MCInstrInfo* instructions_ = nullptr;
  const llvm::MCRegisterInfo* registers_ = nullptr;
  unsigned rip_ = 0;
};

}  // namespace backstep::x86
