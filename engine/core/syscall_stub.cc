#include "engine/core/syscall_stub.h"

#include <climits>
#include <cstring>

#include "preload/preload_interface.h"

namespace backstep::syscall_stub {
namespace {

constexpr uint8_t kTails[][kTailLength] = {
    {0x48, 0x3d, 0x00, 0xf0, 0xff, 0xff},  // cmp $-4096,%rax
    {0x48, 0x3d, 0x01, 0xf0, 0xff, 0xff},  // cmp $-4095,%rax
};
constexpr uint8_t kLeaDown[5] = {0x48, 0x8d, 0x64, 0x24, 0x80};                     // lea -128(%rsp),%rsp
constexpr uint8_t kLeaUp[8] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};     // lea 128(%rsp),%rsp
constexpr uint8_t kSyscall[2] = {0x0f, 0x05};
constexpr uint8_t kJmp = 0xe9, kCall = 0xe8;
constexpr uint64_t kRel32Insn = 5;

bool is_tail(const uint8_t* p) {
  for (const auto& t : kTails) {
    if (std::memcmp(p, t, kTailLength) == 0) return true;
  }
  return false;
}

bool within_rel32(uint64_t from_end, uint64_t to) {
  int64_t d = static_cast<int64_t>(to - from_end);
  return d >= INT32_MIN && d <= INT32_MAX;
}

void put_rel32(std::vector<uint8_t>& code, uint8_t opcode, uint64_t at, uint64_t to) {
  code.push_back(opcode);
  int32_t rel = static_cast<int32_t>(static_cast<int64_t>(to - (at + kRel32Insn)));
  uint8_t b[4];
  std::memcpy(b, &rel, 4);
  code.insert(code.end(), b, b + 4);
}

uint64_t rel32_target(const uint8_t* insn, uint64_t at) {
  int32_t rel;
  std::memcpy(&rel, insn + 1, 4);
  return at + kRel32Insn + static_cast<int64_t>(rel);
}

}  // namespace

bool patchable(const uint8_t* site_bytes) {
  return std::memcmp(site_bytes, kSyscall, sizeof(kSyscall)) == 0 && is_tail(site_bytes + sizeof(kSyscall));
}

Layout layout(uint64_t stub) {
  Layout l;
  l.stub = stub;
  l.handled = stub + sizeof(kLeaDown) + kRel32Insn;
  l.traced = l.handled + BS_STUB_TRACED_DELTA;
  l.after_traced_syscall = l.traced + sizeof(kLeaUp) + sizeof(kSyscall);
  return l;
}

bool reachable(uint64_t site, uint64_t stub, uint64_t trampoline) {
  Layout l = layout(stub);
  return within_rel32(site + kRel32Insn, stub) && within_rel32(l.handled, trampoline) &&
         within_rel32(l.handled + sizeof(kLeaUp) + kTailLength + kRel32Insn, site + kSiteLength) &&
         within_rel32(l.after_traced_syscall + kTailLength + kRel32Insn, site + kSiteLength);
}

std::vector<uint8_t> stub_code(uint64_t stub, uint64_t site, uint64_t trampoline, const uint8_t* site_bytes) {
  const uint8_t* tail = site_bytes + sizeof(kSyscall);
  Layout l = layout(stub);
  std::vector<uint8_t> s(kLeaDown, kLeaDown + sizeof(kLeaDown));
  put_rel32(s, kCall, stub + s.size(), trampoline);
  // Handled: the result is in rax; undo the red-zone step, run the
  // displaced check, go back.
  s.insert(s.end(), kLeaUp, kLeaUp + sizeof(kLeaUp));
  s.insert(s.end(), tail, tail + kTailLength);
  put_rel32(s, kJmp, stub + s.size(), site + kSiteLength);
  s.resize(l.traced - stub, 0xcc);
  // Not handled: the call itself, traced, from the program's own frame.
  s.insert(s.end(), kLeaUp, kLeaUp + sizeof(kLeaUp));
  s.insert(s.end(), kSyscall, kSyscall + sizeof(kSyscall));
  s.insert(s.end(), tail, tail + kTailLength);
  put_rel32(s, kJmp, stub + s.size(), site + kSiteLength);
  s.resize(BS_STUB_SIZE, 0xcc);
  return s;
}

std::vector<uint8_t> site_code(uint64_t site, uint64_t stub) {
  std::vector<uint8_t> s;
  put_rel32(s, kJmp, site, stub);
  s.insert(s.end(), {0x0f, 0x1f, 0x00});  // nop
  return s;
}

std::optional<uint64_t> patched_site_stub(uint64_t addr, const std::vector<uint8_t>& bytes) {
  if (bytes.size() != kSiteLength || bytes[0] != kJmp || bytes[5] != 0x0f || bytes[6] != 0x1f || bytes[7] != 0x00) {
    return std::nullopt;
  }
  return rel32_target(bytes.data(), addr);
}

std::optional<uint64_t> original_pc(uint64_t pc, const ReadMemory& read) {
  // On the traced path right after its `syscall`, or on the handled path
  // right after it undid the red-zone step (the result is in rax, as after
  // the syscall); or at either path's jump back (after the displaced
  // instruction).
  for (bool traced : {true, false}) {
    for (uint64_t back : {uint64_t{0}, kTailLength}) {
      std::optional<uint64_t> site = site_of(pc - back, traced, read);
      if (site) return back == 0 ? *site + sizeof(kSyscall) : *site + kSiteLength;
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> site_of(uint64_t at_tail, bool traced, const ReadMemory& read) {
  // The bytes before the displaced instruction: lea + syscall on the
  // traced path, lea alone on the handled one.
  uint64_t lead = sizeof(kLeaUp) + (traced ? sizeof(kSyscall) : 0);
  if (at_tail < layout(0).after_traced_syscall) return std::nullopt;
  Layout l = layout(traced ? at_tail - layout(0).after_traced_syscall : at_tail - sizeof(kLeaUp) - layout(0).handled);
  uint8_t code[sizeof(kLeaUp) + sizeof(kSyscall) + kTailLength + kRel32Insn];
  std::size_t len = lead + kTailLength + kRel32Insn;
  if (read(at_tail - lead, code, len) != len) return std::nullopt;
  if (std::memcmp(code, kLeaUp, sizeof(kLeaUp)) != 0 ||
      (traced && std::memcmp(code + sizeof(kLeaUp), kSyscall, sizeof(kSyscall)) != 0) || !is_tail(code + lead) ||
      code[lead + kTailLength] != kJmp) {
    return std::nullopt;
  }
  {
    uint64_t jmp_at = at_tail + kTailLength;
    uint64_t site = rel32_target(code + lead + kTailLength, jmp_at) - kSiteLength;
    // The site must jump to this very stub.
    uint8_t jump[kRel32Insn];
    if (read(site, jump, sizeof(jump)) != sizeof(jump) || jump[0] != kJmp || rel32_target(jump, site) != l.stub) {
      return std::nullopt;
    }
    return site;
  }
}

}  // namespace backstep::syscall_stub
