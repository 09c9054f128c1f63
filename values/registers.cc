#include "values/registers.h"

#include <cstring>
#include <iomanip>
#include <sstream>

namespace backstep {

static_assert(sizeof(user_regs_struct) == kRegWords * sizeof(uint64_t),
              "the trace stores user_regs_struct word for word");

namespace {

constexpr const char* kWordNames[kRegWords] = {
    "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9",
    "r8",  "rax", "rcx", "rdx", "rsi", "rdi", "orig_rax", "rip", "cs",
    "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs"};

constexpr std::size_t kEflagsWord = offsetof(user_regs_struct, eflags) / 8;
// `syscall` copies rflags into r11, so single-stepping onto it leaves TF there.
constexpr std::size_t kR11Word = offsetof(user_regs_struct, r11) / 8;

}  // namespace

Registers Registers::from_block(const RegBlock& block) {
  Registers r;
  std::memcpy(&r.regs_, block.data(), sizeof(r.regs_));
  return r;
}

RegBlock Registers::to_block() const {
  RegBlock block;
  std::memcpy(block.data(), &regs_, sizeof(regs_));
  return block;
}

uint64_t Registers::arg(int i) const {
  switch (i) {
    case 0: return regs_.rdi;
    case 1: return regs_.rsi;
    case 2: return regs_.rdx;
    case 3: return regs_.r10;
    case 4: return regs_.r8;
    default: return regs_.r9;
  }
}

void Registers::set_arg(int i, uint64_t v) {
  switch (i) {
    case 0: regs_.rdi = v; break;
    case 1: regs_.rsi = v; break;
    case 2: regs_.rdx = v; break;
    case 3: regs_.r10 = v; break;
    case 4: regs_.r8 = v; break;
    default: regs_.r9 = v; break;
  }
}

const char* Registers::word_name(std::size_t index) {
  return index < kRegWords ? kWordNames[index] : "?";
}

std::vector<RegChange> Registers::changes_since(const Registers& before) const {
  RegBlock now = to_block(), then = before.to_block();
  std::vector<RegChange> changes;
  for (std::size_t i = 0; i < kRegWords; ++i) {
    if (now[i] != then[i]) changes.push_back({static_cast<uint8_t>(i), now[i]});
  }
  return changes;
}

void Registers::apply(const std::vector<RegChange>& changes) {
  RegBlock block = to_block();
  for (const auto& c : changes) {
    if (c.index < kRegWords) block[c.index] = c.value;
  }
  *this = from_block(block);
}

std::string Registers::differences(const Registers& recorded, const Registers& live) {
  RegBlock a = recorded.to_block(), b = live.to_block();
  a[kEflagsWord] &= ~(kTrapFlag | kResumeFlag);
  b[kEflagsWord] &= ~(kTrapFlag | kResumeFlag);
  if ((a[kR11Word] ^ b[kR11Word]) == kTrapFlag) b[kR11Word] = a[kR11Word];
  std::ostringstream os;
  for (std::size_t i = 0; i < kRegWords; ++i) {
    if (a[i] == b[i]) continue;
    if (os.tellp() > 0) os << ", ";
    os << kWordNames[i] << " recorded 0x" << std::hex << a[i] << " live 0x" << b[i]
       << std::dec;
  }
  return os.str();
}

bool Registers::same_gprs(const Registers& other) const {
  const user_regs_struct& x = raw();
  const user_regs_struct& y = other.raw();
  return x.rax == y.rax && x.rbx == y.rbx && x.rcx == y.rcx && x.rdx == y.rdx && x.rsi == y.rsi &&
         x.rdi == y.rdi && x.rbp == y.rbp && x.rsp == y.rsp && x.r8 == y.r8 && x.r9 == y.r9 && x.r10 == y.r10 &&
         x.r11 == y.r11 && x.r12 == y.r12 && x.r13 == y.r13 && x.r14 == y.r14 && x.r15 == y.r15;
}

}  // namespace backstep
