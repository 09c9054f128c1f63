#include "engine/core/x86_decoder.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstrDesc.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "engine/core/x86_llvm.h"

namespace backstep::x86 {
namespace {

// Lengths and placements, from LLVM's tables (x86_llvm.h).
class Decoder {
 public:
  Decoder()
      : llvm_(Llvm::get()),
        registers_(&llvm_.registers()),
        instructions_(&llvm_.instructions()),
        rip_(llvm_.rip()) {}

  std::optional<Instruction> decode(const uint8_t* code, std::size_t len, uint64_t addr) const {
    llvm::MCInst inst;
    uint64_t size = 0;
    if (!llvm_.disassemble(code, len, addr, inst, size)) return std::nullopt;
    const llvm::MCInstrDesc& desc = instructions_->get(inst.getOpcode());
    llvm::StringRef name = instructions_->getName(inst.getOpcode());
    Instruction out;
    out.length = static_cast<uint8_t>(size);
    out.padding = name.startswith("NOOP") || name == "INT3";
    if (desc.isBranch() && !desc.isIndirectBranch()) return relative_jump(out, code, addr);
    if (desc.mayAffectControlFlow(inst, *registers_) || desc.isCall() || desc.isReturn() || desc.isTrap() ||
        desc.hasUnmodeledSideEffects() || name == "INT3" || traps_into_kernel(code)) {
      out.placement = Placement::FixedControlFlow;
      return out;
    }
    return with_operands(out, inst, code, addr);
  }

 private:
  static bool traps_into_kernel(const uint8_t* code) {
    // syscall, sysenter, int N: already flagged by LLVM as side effects,
    // checked by their bytes as well since moving one is never right.
    return (code[0] == 0x0f && (code[1] == 0x05 || code[1] == 0x34)) || code[0] == 0xcd;
  }

  static std::optional<Instruction> relative_jump(Instruction out, const uint8_t* code, uint64_t addr) {
    // Only the plain encodings, no prefix: 0x70+cc rel8, 0xeb rel8, 0xe9
    // rel32, 0x0f 0x80+cc rel32, 0xe0-0xe3 rel8 (loopne, loope, loop,
    // jrcxz). Prefixed forms (jecxz, loop on ecx) stay put.
    int64_t rel = 0;
    if (out.length == 2 && code[0] >= 0xe0 && code[0] <= 0xe3) {
      out.conditional = true;
      out.rcx_jump = code[0];
      rel = static_cast<int8_t>(code[1]);
    } else if (out.length == 2 && code[0] >= 0x70 && code[0] <= 0x7f) {
      out.conditional = true;
      out.condition = code[0] & 0xf;
      rel = static_cast<int8_t>(code[1]);
    } else if (out.length == 2 && code[0] == 0xeb) {
      rel = static_cast<int8_t>(code[1]);
    } else if (out.length == 5 && code[0] == 0xe9) {
      int32_t r;
      std::memcpy(&r, code + 1, 4);
      rel = r;
    } else if (out.length == 6 && code[0] == 0x0f && code[1] >= 0x80 && code[1] <= 0x8f) {
      int32_t r;
      std::memcpy(&r, code + 2, 4);
      out.conditional = true;
      out.condition = code[1] & 0xf;
      rel = r;
    } else {
      out.placement = Placement::FixedControlFlow;
      return out;
    }
    out.placement = Placement::RelativeJump;
    out.target = addr + out.length + static_cast<uint64_t>(rel);
    return out;
  }

  std::optional<Instruction> with_operands(Instruction out, const llvm::MCInst& inst, const uint8_t* code,
                                           uint64_t addr) const {
    // x86 memory operands are five MCOperands: base, scale, index,
    // displacement, segment. One based on rip, and no immediate elsewhere,
    // puts the disp32 in the instruction's last four bytes (checked).
    unsigned n = inst.getNumOperands();
    unsigned base = n;
    for (unsigned i = 0; i < n; ++i) {
      const llvm::MCOperand& op = inst.getOperand(i);
      if (op.isReg() && rip_ && op.getReg() == rip_) {
        if (base != n) return fixed(out);
        base = i;
      }
    }
    if (base == n) return out;
    if (base + 4 >= n || !inst.getOperand(base + 1).isImm() || !inst.getOperand(base + 2).isReg() ||
        inst.getOperand(base + 2).getReg() != 0 || !inst.getOperand(base + 3).isImm() ||
        !inst.getOperand(base + 4).isReg()) {
      return fixed(out);  // rip used otherwise, or indexed
    }
    for (unsigned i = 0; i < n; ++i) {
      const llvm::MCOperand& op = inst.getOperand(i);
      if ((i < base || i > base + 4) && (op.isImm() || op.isExpr())) return fixed(out);
    }
    int64_t displacement = inst.getOperand(base + 3).getImm();
    if (out.length < 5) return fixed(out);
    int32_t disp32;
    std::memcpy(&disp32, code + out.length - 4, 4);
    if (disp32 != displacement) return fixed(out);
    out.placement = Placement::RipRelative;
    out.displacement_at = static_cast<uint8_t>(out.length - 4);
    out.target = addr + out.length + static_cast<uint64_t>(displacement);
    return out;
  }

  static Instruction fixed(Instruction out) {
    out.placement = Placement::FixedControlFlow;
    return out;
  }

  const Llvm& llvm_;
  const llvm::MCRegisterInfo* registers_;
  const llvm::MCInstrInfo* instructions_;
  unsigned rip_;
};

}  // namespace

std::optional<Instruction> decode(const uint8_t* code, std::size_t len, uint64_t addr) {
  if (len == 0) return std::nullopt;
  static const Decoder decoder;
  return decoder.decode(code, len, addr);
}

bool within_rel32(uint64_t from_end, uint64_t to) {
  int64_t d = static_cast<int64_t>(to - from_end);
  return d >= INT32_MIN && d <= INT32_MAX;
}

void append_rel32(std::vector<uint8_t>& out, uint64_t from_end, uint64_t to) {
  int32_t rel = static_cast<int32_t>(static_cast<int64_t>(to - from_end));
  uint8_t b[4];
  std::memcpy(b, &rel, 4);
  out.insert(out.end(), b, b + 4);
}

namespace {

// The copy of an rcx jump, before its rel32 jmp: rcx goes down by one
// without touching the flags (lea), and the jmp is skipped where the
// original would not jump.
std::vector<uint8_t> rcx_jump_prologue(uint8_t opcode) {
  constexpr uint8_t kDecRcx[] = {0x48, 0x8d, 0x49, 0xff};  // lea -0x1(%rcx),%rcx
  switch (opcode) {
    case 0xe3:  // jrcxz: to the jmp when rcx is zero, else over it
      return {0xe3, 0x02, 0xeb, 0x05};
    case 0xe2: {  // loop: jump while rcx, decremented, is not zero
      std::vector<uint8_t> v(kDecRcx, kDecRcx + 4);
      v.insert(v.end(), {0xe3, 0x05});
      return v;
    }
    default: {  // loope (0xe1): and ZF set; loopne (0xe0): and ZF clear
      std::vector<uint8_t> v(kDecRcx, kDecRcx + 4);
      v.insert(v.end(), {0xe3, 0x07});
      v.insert(v.end(), {static_cast<uint8_t>(opcode == 0xe1 ? 0x75 : 0x74), 0x05});  // jne / je over the jmp
      return v;
    }
  }
}

}  // namespace

std::size_t moved_length(const Instruction& insn) {
  if (insn.placement == Placement::RelativeJump && insn.rcx_jump) return rcx_jump_prologue(insn.rcx_jump).size() + 5;
  if (insn.placement == Placement::RelativeJump) return insn.conditional ? 6 : 5;
  return insn.length;
}

bool reaches_from(const Instruction& insn, uint64_t here) {
  if (insn.placement != Placement::RipRelative && insn.placement != Placement::RelativeJump) return true;
  return within_rel32(here + moved_length(insn), insn.target);
}

void append_moved(std::vector<uint8_t>& out, const Instruction& insn, const uint8_t* code, uint64_t here) {
  switch (insn.placement) {
    case Placement::Anywhere:
    case Placement::FixedControlFlow:
      out.insert(out.end(), code, code + insn.length);
      return;
    case Placement::RipRelative: {
      std::size_t start = out.size();
      out.insert(out.end(), code, code + insn.length);
      int32_t disp = static_cast<int32_t>(static_cast<int64_t>(insn.target - (here + insn.length)));
      std::memcpy(out.data() + start + insn.displacement_at, &disp, 4);
      return;
    }
    case Placement::RelativeJump:
      if (insn.rcx_jump) {
        std::vector<uint8_t> prologue = rcx_jump_prologue(insn.rcx_jump);
        out.insert(out.end(), prologue.begin(), prologue.end());
        out.push_back(0xe9);
      } else if (insn.conditional) {
        out.push_back(0x0f);
        out.push_back(static_cast<uint8_t>(0x80 | insn.condition));
      } else {
        out.push_back(0xe9);
      }
      append_rel32(out, here + moved_length(insn), insn.target);
      return;
  }
}

bool may_be_jumped_into(const std::vector<uint64_t>& places, uint64_t around, uint64_t reach,
                        const ReadMemory& read) {
  if (places.empty()) return false;
  uint64_t from = around > reach ? around - reach : 0;
  uint64_t end = around + reach;
  std::vector<uint8_t> code(end - from);
  // What is readable around `around`: the mapping may begin or end nearby
  // (at a page boundary).
  std::size_t got = 0;
  for (uint64_t start = from; start <= around; start = (start | 4095) + 1) {
    got = read(start, code.data(), end - start);
    if (got > 0) {
      from = start;
      break;
    }
  }
  bool landed = false;
  for_each_direct_jump_target(code.data(), got, from, [&](uint64_t target) {
    landed = landed || std::find(places.begin(), places.end(), target) != places.end();
  });
  return landed;
}

void for_each_direct_jump_target(const uint8_t* code, std::size_t n, uint64_t at,
                                 const std::function<void(uint64_t)>& f) {
  for (std::size_t i = 0; i + 1 < n; ++i) {
    uint64_t here = at + i;
    uint8_t b = code[i];
    if ((b >= 0x70 && b <= 0x7f) || b == 0xeb || (b >= 0xe0 && b <= 0xe3)) {
      f(here + 2 + static_cast<int8_t>(code[i + 1]));
    }
    if ((b == 0xe9 || b == 0xe8) && i + 5 <= n) {
      int32_t rel;
      std::memcpy(&rel, &code[i + 1], 4);
      f(here + 5 + static_cast<int64_t>(rel));
    }
    if (b == 0x0f && code[i + 1] >= 0x80 && code[i + 1] <= 0x8f && i + 6 <= n) {
      int32_t rel;
      std::memcpy(&rel, &code[i + 2], 4);
      f(here + 6 + static_cast<int64_t>(rel));
    }
  }
}

std::size_t instruction_length(const uint8_t* code, std::size_t len, uint64_t addr) {
  static const Llvm& llvm = Llvm::get();
  llvm::MCInst inst;
  uint64_t size = 0;
  return llvm.disassemble(code, len, addr, inst, size) ? static_cast<std::size_t>(size) : 0;
}

void for_each_instruction(const uint8_t* code, std::size_t size, uint64_t addr,
                          const std::function<void(std::size_t at, std::size_t length)>& fn) {
  std::size_t at = 0;
  while (at < size) {
    std::size_t length = instruction_length(code + at, size - at, addr + at);
    if (length == 0) {
      ++at;
      continue;
    }
    fn(at, length);
    at += length;
  }
}

bool is_syscall_instruction(const uint8_t* code, bool sysenter) {
  if (code[0] == 0x0f) return code[1] == 0x05 || (sysenter && code[1] == 0x34);
  return code[0] == 0xcd && code[1] == 0x80;
}

}  // namespace backstep::x86
