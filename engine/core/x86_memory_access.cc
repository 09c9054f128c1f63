#include "engine/core/x86_memory_access.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstrDesc.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <unordered_map>

#include "engine/core/x86_llvm.h"

namespace backstep::x86 {
namespace {

// Where a general-purpose register lives in user_regs_struct, and whether
// it is named as its 64- or 32-bit self (an address-size prefix).
struct GeneralRegister {
  std::size_t offset = 0;
  bool bits32 = false;
};

struct NamedRegister {
  const char* name64;
  const char* name32;
  std::size_t offset;
};

const NamedRegister kGeneral[] = {
    {"RAX", "EAX", offsetof(user_regs_struct, rax)}, {"RBX", "EBX", offsetof(user_regs_struct, rbx)},
    {"RCX", "ECX", offsetof(user_regs_struct, rcx)}, {"RDX", "EDX", offsetof(user_regs_struct, rdx)},
    {"RSI", "ESI", offsetof(user_regs_struct, rsi)}, {"RDI", "EDI", offsetof(user_regs_struct, rdi)},
    {"RBP", "EBP", offsetof(user_regs_struct, rbp)}, {"RSP", "ESP", offsetof(user_regs_struct, rsp)},
    {"R8", "R8D", offsetof(user_regs_struct, r8)},   {"R9", "R9D", offsetof(user_regs_struct, r9)},
    {"R10", "R10D", offsetof(user_regs_struct, r10)}, {"R11", "R11D", offsetof(user_regs_struct, r11)},
    {"R12", "R12D", offsetof(user_regs_struct, r12)}, {"R13", "R13D", offsetof(user_regs_struct, r13)},
    {"R14", "R14D", offsetof(user_regs_struct, r14)}, {"R15", "R15D", offsetof(user_regs_struct, r15)},
};

uint64_t word(const Registers& regs, std::size_t offset) {
  uint64_t v;
  std::memcpy(&v, reinterpret_cast<const char*>(&regs.raw()) + offset, sizeof v);
  return v;
}

// The size Intel syntax gives a memory operand ("dword ptr [rbx]"); 0 if
// it names none.
uint64_t operand_size(const std::string& text) {
  static const std::pair<const char*, uint64_t> kSizes[] = {
      {"byte", 1}, {"word", 2}, {"dword", 4}, {"fword", 6}, {"qword", 8},
      {"tbyte", 10}, {"xmmword", 16}, {"ymmword", 32}, {"zmmword", 64},
  };
  std::size_t ptr = text.find(" ptr ");
  if (ptr == std::string::npos) return 0;
  std::size_t start = text.find_last_of(" \t,", ptr - 1);
  start = start == std::string::npos ? 0 : start + 1;
  std::string word = text.substr(start, ptr - start);
  for (const auto& [name, size] : kSizes) {
    if (word == name) return size;
  }
  return 0;
}

// Memory operands LLVM prints without a size: the areas they name.
uint64_t opaque_size(llvm::StringRef name) {
  if (name.startswith("FXSAVE") || name.startswith("FXRSTOR")) return 512;
  if (name.startswith("XSAVE") || name.startswith("XRSTOR")) return 4096;  // a bound: the area's size varies
  if (name.startswith("FSAVE") || name.startswith("FRSTOR")) return 108;
  if (name.startswith("FSTENV") || name.startswith("FLDENV")) return 28;
  return 8;
}

// Instructions with a memory operand that touch no memory.
bool touches_nothing(llvm::StringRef name) {
  return name.startswith("LEA") || name.startswith("NOOP") || name.startswith("PREFETCH") ||
         name.startswith("CLFLUSH") || name.startswith("CLWB") || name.startswith("CLDEMOTE");
}

struct Prefixes {
  bool rep = false;     // f2 or f3
  bool addr32 = false;  // 67
  uint8_t segment = 0;  // 64 (fs) or 65 (gs), else 0
};

Prefixes prefixes(const uint8_t* code, std::size_t len) {
  Prefixes p;
  for (std::size_t i = 0; i < len; ++i) {
    switch (code[i]) {
      case 0xf2: case 0xf3: p.rep = true; break;
      case 0x67: p.addr32 = true; break;
      case 0x64: case 0x65: p.segment = code[i]; break;
      case 0xf0: case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x66: break;
      default: return p;
    }
  }
  return p;
}

class AccessDecoder {
 public:
  AccessDecoder() : llvm_(Llvm::get()) {
    const llvm::MCRegisterInfo& info = llvm_.registers();
    for (unsigned r = 1; r < info.getNumRegs(); ++r) {
      llvm::StringRef name = info.getName(r);
      for (const NamedRegister& g : kGeneral) {
        if (name == g.name64) general_[r] = {g.offset, false};
        if (name == g.name32) general_[r] = {g.offset, true};
      }
      if (name == "FS") fs_ = r;
      if (name == "GS") gs_ = r;
      if (name == "EIP") eip_ = r;
    }
  }

  std::optional<std::vector<MemoryAccess>> accesses(const uint8_t* code, std::size_t len, const Registers& regs) const {
    llvm::MCInst inst;
    uint64_t size = 0;
    if (!llvm_.disassemble(code, len, regs.ip(), inst, size)) return std::nullopt;
    const llvm::MCInstrDesc& desc = llvm_.instructions().get(inst.getOpcode());
    llvm::StringRef name = llvm_.instructions().getName(inst.getOpcode());
    std::vector<MemoryAccess> out;
    if (string_instruction(name, code, len, regs, out)) return out;
    // The explicit memory operand's direction, unless the stack is the
    // other side (push/pop/call with a memory operand).
    bool read = desc.mayLoad();
    bool write = desc.mayStore();
    uint64_t stack = regs.raw().rsp;
    if (name.startswith("PUSH")) {
      uint64_t n = name.contains("16") ? 2 : 8;
      out.push_back({stack - n, n, false, true});
      read = name.endswith("mm");
      write = false;
    } else if (name.startswith("POP") && !name.startswith("POPCNT")) {
      uint64_t n = name.contains("16") ? 2 : 8;
      out.push_back({stack, n, true, false});
      read = false;
      write = name.endswith("mm");
    } else if (name.startswith("CALL")) {
      out.push_back({stack - 8, 8, false, true});
      write = false;
    } else if (name.startswith("RET")) {
      out.push_back({stack, 8, true, false});
      read = write = false;
    } else if (name.startswith("LEAVE")) {
      out.push_back({regs.raw().rbp, 8, true, false});
      read = write = false;
    } else if (name.startswith("ENTER")) {
      out.push_back({stack - 8, 8, false, true});
      read = write = false;
    } else if (name == "XLAT") {
      out.push_back({regs.raw().rbx + (regs.raw().rax & 0xff), 1, true, false});
      return out;
    }
    int memory = memory_operand(desc, inst);
    if (memory < 0 || touches_nothing(name)) return out;
    // An operand LLVM's tables give no direction (an instruction without
    // a pattern): taken as read, which only a watched read looks for.
    if (!read && !write) read = true;
    std::optional<uint64_t> addr = effective_address(inst, static_cast<unsigned>(memory), regs, size);
    if (!addr) return out;
    uint64_t n = operand_size(llvm_.intel_text(inst, regs.ip()));
    if (n == 0) n = opaque_size(name);
    out.push_back({*addr, n, read, write});
    return out;
  }

 private:
  // The first of the five operands (base, scale, index, displacement,
  // segment) of the instruction's memory operand, or -1.
  static int memory_operand(const llvm::MCInstrDesc& desc, const llvm::MCInst& inst) {
    unsigned n = std::min<unsigned>(desc.getNumOperands(), inst.getNumOperands());
    for (unsigned i = 0; i + 4 < n; ++i) {
      if (desc.OpInfo[i].OperandType == llvm::MCOI::OPERAND_MEMORY) return static_cast<int>(i);
    }
    return -1;
  }

  std::optional<uint64_t> register_value(unsigned reg, const Registers& regs, uint64_t next_ip, bool& bits32) const {
    if (reg == 0) return 0;
    if (reg == llvm_.rip()) return next_ip;
    if (reg == eip_) {
      bits32 = true;
      return next_ip;
    }
    auto it = general_.find(reg);
    if (it == general_.end()) return std::nullopt;  // a vector index (gathers)
    bits32 = bits32 || it->second.bits32;
    return word(regs, it->second.offset);
  }

  std::optional<uint64_t> effective_address(const llvm::MCInst& inst, unsigned at, const Registers& regs,
                                            uint64_t size) const {
    const llvm::MCOperand& base = inst.getOperand(at);
    const llvm::MCOperand& scale = inst.getOperand(at + 1);
    const llvm::MCOperand& index = inst.getOperand(at + 2);
    const llvm::MCOperand& disp = inst.getOperand(at + 3);
    const llvm::MCOperand& segment = inst.getOperand(at + 4);
    if (!base.isReg() || !scale.isImm() || !index.isReg() || !disp.isImm() || !segment.isReg()) return std::nullopt;
    bool bits32 = false;
    uint64_t next_ip = regs.ip() + size;
    std::optional<uint64_t> b = register_value(base.getReg(), regs, next_ip, bits32);
    std::optional<uint64_t> x = register_value(index.getReg(), regs, next_ip, bits32);
    if (!b || !x) return std::nullopt;
    uint64_t ea = *b + *x * static_cast<uint64_t>(scale.getImm()) + static_cast<uint64_t>(disp.getImm());
    if (bits32) ea &= 0xffffffffu;
    return ea + segment_base(segment.getReg(), regs);
  }

  uint64_t segment_base(unsigned segment, const Registers& regs) const {
    if (segment != 0 && segment == fs_) return regs.raw().fs_base;
    if (segment != 0 && segment == gs_) return regs.raw().gs_base;
    return 0;  // cs, ds, es, ss: base 0 in 64-bit mode
  }

  // movs, cmps, lods, scas, stos: [rsi] (its segment may be overridden)
  // and [rdi], one element.
  static bool string_instruction(llvm::StringRef name, const uint8_t* code, std::size_t len, const Registers& regs,
                                 std::vector<MemoryAccess>& out) {
    if (name.size() != 5) return false;
    llvm::StringRef op = name.take_front(4);
    bool source = op == "MOVS" || op == "CMPS" || op == "LODS";
    bool destination = op == "MOVS" || op == "CMPS" || op == "SCAS" || op == "STOS";
    if (!source && !destination) return false;
    uint64_t n = 0;
    switch (name.back()) {
      case 'B': n = 1; break;
      case 'W': n = 2; break;
      case 'L': n = 4; break;
      case 'Q': n = 8; break;
      default: return false;
    }
    Prefixes p = prefixes(code, len);
    uint64_t mask = p.addr32 ? 0xffffffffu : ~uint64_t{0};
    if (p.rep && (regs.raw().rcx & mask) == 0) return true;  // no iteration
    if (source) {
      uint64_t base = p.segment == 0x64 ? regs.raw().fs_base : p.segment == 0x65 ? regs.raw().gs_base : 0;
      out.push_back({base + (regs.raw().rsi & mask), n, true, false});
    }
    if (destination) {
      bool compares = op == "CMPS" || op == "SCAS";
      out.push_back({regs.raw().rdi & mask, n, compares, !compares});
    }
    return true;
  }

  const Llvm& llvm_;
  std::unordered_map<unsigned, GeneralRegister> general_;
  unsigned fs_ = 0;
  unsigned gs_ = 0;
  unsigned eip_ = 0;
};

}  // namespace

std::optional<std::vector<MemoryAccess>> memory_accesses(const uint8_t* code, std::size_t len, const Registers& regs) {
  if (len == 0) return std::nullopt;
  static const AccessDecoder decoder;
  return decoder.accesses(code, len, regs);
}

bool reads_range(const std::vector<MemoryAccess>& accesses, uint64_t addr, uint64_t len) {
  for (const MemoryAccess& a : accesses) {
    if (a.read && a.addr < addr + len && addr < a.addr + a.len) return true;
  }
  return false;
}

}  // namespace backstep::x86
