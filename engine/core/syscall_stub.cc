#include "engine/core/syscall_stub.h"

#include <algorithm>
#include <climits>
#include <cstring>

namespace backstep::syscall_stub {
namespace {

constexpr uint8_t kLeaDown[5] = {0x48, 0x8d, 0x64, 0x24, 0x80};                  // lea -128(%rsp),%rsp
constexpr uint8_t kLeaUp[kLeaUpLength] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};  // lea 128(%rsp),%rsp
constexpr uint8_t kSyscall[2] = {0x0f, 0x05};
// A patched rdtsc (tsc_sites.h): `int 0x2e`, which traps like the rdtsc did;
// a patched rdtscp: `int 0x2f` and a nop, displaced like the instructions
// after it (the recorder's trap handler skips the nop with the trap).
constexpr uint8_t kTrappedRdtsc[2] = {0xcd, 0x2e};
constexpr uint8_t kTrappedRdtscp[2] = {0xcd, 0x2f};
// The instructions themselves, where the kernel makes them fault: an
// rdtsc's traced path traps with the rdtsc; an rdtscp's, three bytes, is
// planned as its patched form (`int 0x2f; nop`) would be.
constexpr uint8_t kRdtsc[2] = {0x0f, 0x31};
constexpr uint8_t kRdtscp[3] = {0x0f, 0x01, 0xf9};
constexpr uint8_t kNop = 0x90;
static_assert(sizeof(kSyscall) == sizeof(kTrappedRdtsc) && sizeof(kSyscall) == sizeof(kTrappedRdtscp),
              "a stub's traced path has room for one two-byte trap");
constexpr uint8_t kJmp = 0xe9, kCall = 0xe8, kRet = 0xc3;
constexpr uint64_t kRel32Insn = 5;
// The jump's padding up to the end of the patch: the recommended
// multi-byte nops, by length (so that gdb disassembles a patched site as a
// jump and nops).
constexpr uint8_t kNops[][9] = {
    {},
    {0x90},
    {0x66, 0x90},
    {0x0f, 0x1f, 0x00},
    {0x0f, 0x1f, 0x40, 0x00},
    {0x0f, 0x1f, 0x44, 0x00, 0x00},
    {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00},
    {0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00},
    {0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
    {0x66, 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00},
};
constexpr std::size_t kLongestNop = 9;

using x86::within_rel32;

void put_rel32(std::vector<uint8_t>& code, uint8_t opcode, uint64_t at, uint64_t to) {
  code.push_back(opcode);
  x86::append_rel32(code, at + kRel32Insn, to);
}

uint64_t rel32_target(const uint8_t* insn, uint64_t at) {
  int32_t rel;
  std::memcpy(&rel, insn + 1, 4);
  return at + kRel32Insn + static_cast<int64_t>(rel);
}

// The copy's length for a displaced instruction; 0 where it is not copied
// (padding after a ret or jmp), -1 where it cannot be displaced.
int copy_length(const x86::Instruction& insn, const uint8_t* code, bool flow_ended) {
  if (flow_ended) return insn.padding ? 0 : -1;
  switch (insn.placement) {
    case x86::Placement::Anywhere:
    case x86::Placement::RipRelative:
    case x86::Placement::RelativeJump:
      return static_cast<int>(x86::moved_length(insn));
    case x86::Placement::FixedControlFlow:
      return insn.length == 1 && code[0] == kRet ? 1 : -1;
  }
  return -1;
}

bool ends_flow(const x86::Instruction& insn) {
  return insn.placement == x86::Placement::FixedControlFlow ||
         (insn.placement == x86::Placement::RelativeJump && !insn.conditional);
}

// One copy of the displaced instructions, at `at`, then the jump back.
void put_copy(std::vector<uint8_t>& s, const Plan& plan, uint64_t at) {
  const bs_stub_info& info = plan.info;
  for (uint8_t i = 0; i < info.count; ++i) {
    uint8_t next = i + 1 < info.count ? info.copied[i + 1] : info.copy_length;
    if (next == info.copied[i]) continue;  // padding, not copied
    x86::append_moved(s, plan.displaced[i], plan.original.data() + info.original[i], at + info.copied[i]);
  }
  put_rel32(s, kJmp, at + info.copy_length, info.site + info.site_length);
}

// Where each copy of the displaced instructions starts.
uint64_t handled_copy(uint64_t stub) { return layout(stub).handled + kLeaUpLength; }
uint64_t traced_copy(uint64_t stub) { return layout(stub).after_traced_syscall; }

}  // namespace

std::optional<StubEntry> site_entry(const uint8_t* code, std::size_t len) {
  if (len < sizeof(kSyscall)) return std::nullopt;
  if (std::memcmp(code, kSyscall, sizeof(kSyscall)) == 0) return StubEntry::Syscall;
  if (std::memcmp(code, kTrappedRdtsc, sizeof(kTrappedRdtsc)) == 0) return StubEntry::Rdtsc;
  if (std::memcmp(code, kRdtsc, sizeof(kRdtsc)) == 0) return StubEntry::Rdtsc;
  if (len > sizeof(kTrappedRdtscp) && std::memcmp(code, kTrappedRdtscp, sizeof(kTrappedRdtscp)) == 0 &&
      code[sizeof(kTrappedRdtscp)] == kNop) {
    return StubEntry::Rdtscp;
  }
  if (len >= sizeof(kRdtscp) && std::memcmp(code, kRdtscp, sizeof(kRdtscp)) == 0) return StubEntry::Rdtscp;
  return std::nullopt;
}

namespace {

// The plan for a site whose first two bytes are the instruction the stub
// stands for (its traced path runs them as they are), from the
// instructions after it.
std::optional<Plan> plan_after_head(uint64_t site, const uint8_t* code, std::size_t len) {
  Plan p;
  p.info.site = site;
  p.info.magic = BS_STUB_INFO_MAGIC;
  std::size_t off = sizeof(kSyscall);
  unsigned copied = 0;
  bool flow_ended = false;
  while (off < kRel32Insn) {
    if (p.info.count == BS_STUB_MAX_DISPLACED) return std::nullopt;
    std::optional<x86::Instruction> insn = x86::decode(code + off, len - off, site + off);
    if (!insn) return std::nullopt;
    int n = copy_length(*insn, code + off, flow_ended);
    if (n < 0) return std::nullopt;
    p.info.original[p.info.count] = static_cast<uint8_t>(off);
    p.info.copied[p.info.count] = static_cast<uint8_t>(copied);
    ++p.info.count;
    p.displaced.push_back(*insn);
    flow_ended = flow_ended || ends_flow(*insn);
    copied += static_cast<unsigned>(n);
    off += insn->length;
  }
  if (copied > BS_STUB_MAX_COPY) return std::nullopt;
  p.info.site_length = static_cast<uint8_t>(off);
  p.info.copy_length = static_cast<uint8_t>(copied);
  // A jump into the patch (but to its start, which still makes the call)
  // would land in the middle of the new jump; an operand that reads the
  // patched bytes would read the new ones.
  for (const x86::Instruction& insn : p.displaced) {
    bool aims = insn.placement == x86::Placement::RelativeJump || insn.placement == x86::Placement::RipRelative;
    if (aims && insn.target > site && insn.target < site + off) return std::nullopt;
  }
  p.original.assign(code, code + off);
  return p;
}

}  // namespace

std::optional<Plan> plan(uint64_t site, const uint8_t* code, std::size_t len) {
  if (len < kRel32Insn || !site_entry(code, len)) return std::nullopt;
  uint8_t as_patched[kSiteReadLength];
  if (len >= sizeof(kRdtscp) && std::memcmp(code, kRdtscp, sizeof(kRdtscp)) == 0) {
    len = std::min(len, sizeof(as_patched));
    std::memcpy(as_patched, code, len);
    std::memcpy(as_patched, kTrappedRdtscp, sizeof(kTrappedRdtscp));
    as_patched[sizeof(kTrappedRdtscp)] = kNop;
    code = as_patched;
  }
  return plan_after_head(site, code, len);
}

std::optional<Plan> plan_cpuid(uint64_t site, const uint8_t* code, std::size_t len) {
  constexpr uint8_t kCpuid[2] = {0x0f, 0xa2}, kPatchedCpuid[2] = {0xcd, 0x28};  // cpuid_trap.h
  if (len < kRel32Insn) return std::nullopt;
  if (std::memcmp(code, kCpuid, sizeof(kCpuid)) != 0 && std::memcmp(code, kPatchedCpuid, sizeof(kPatchedCpuid)) != 0) {
    return std::nullopt;
  }
  return plan_after_head(site, code, len);
}

bool may_be_jumped_into(const Plan& plan, const ReadMemory& read) {
  // The places a jump must not reach: each displaced instruction, unless
  // it is padding after the end of the flow (nothing falls or jumps into
  // alignment padding). The first one too: a join right after the call
  // is common (glibc's posix_spawn child jumps right after its
  // rt_sigprocmask's `syscall`, handle_amd right after a cpuid), and a
  // jump there would land inside the patch's own jump.
  const bs_stub_info& info = plan.info;
  std::vector<uint64_t> places;
  bool ended = false;
  for (uint8_t i = 0; i < info.count; ++i) {
    if (ended) break;
    places.push_back(info.site + info.original[i]);
    ended = ends_flow(plan.displaced[i]);
  }
  return x86::may_be_jumped_into(places, info.site, 4096, read);
}

Layout layout(uint64_t stub) {
  Layout l;
  l.stub = stub;
  l.handled = stub + sizeof(kLeaDown) + kRel32Insn;
  l.traced = l.handled + BS_STUB_TRACED_DELTA;
  l.after_traced_syscall = l.traced + sizeof(kLeaUp) + sizeof(kSyscall);
  return l;
}

bool reachable(const Plan& plan, uint64_t stub, uint64_t trampoline) {
  const bs_stub_info& info = plan.info;
  uint64_t back = info.site + info.site_length;
  if (!within_rel32(info.site + kRel32Insn, stub) || !within_rel32(layout(stub).handled, trampoline)) return false;
  for (uint64_t copy : {handled_copy(stub), traced_copy(stub)}) {
    if (!within_rel32(copy + info.copy_length + kRel32Insn, back)) return false;
    for (uint8_t i = 0; i < info.count; ++i) {
      if (!x86::reaches_from(plan.displaced[i], copy + info.copied[i])) return false;
    }
  }
  return true;
}

std::vector<uint8_t> stub_code(const Plan& plan, uint64_t stub, uint64_t trampoline) {
  Layout l = layout(stub);
  std::vector<uint8_t> s(kLeaDown, kLeaDown + sizeof(kLeaDown));
  put_rel32(s, kCall, stub + s.size(), trampoline);
  // Handled: the result is in rax; undo the red-zone step, run the
  // displaced instructions, go back.
  s.insert(s.end(), kLeaUp, kLeaUp + sizeof(kLeaUp));
  put_copy(s, plan, handled_copy(stub));
  s.resize(l.traced - stub, 0xcc);
  // Not handled: the call itself (or the trapping rdtsc), traced, from the
  // program's own frame.
  s.insert(s.end(), kLeaUp, kLeaUp + sizeof(kLeaUp));
  s.insert(s.end(), plan.original.begin(), plan.original.begin() + sizeof(kSyscall));
  put_copy(s, plan, traced_copy(stub));
  s.resize(BS_STUB_INFO_OFFSET, 0xcc);
  const uint8_t* info = reinterpret_cast<const uint8_t*>(&plan.info);
  s.insert(s.end(), info, info + sizeof(plan.info));
  return s;
}

std::vector<uint8_t> veneer_slot(const EntryAddresses& entries) {
  constexpr uint8_t kJmpRipIndirect[6] = {0xff, 0x25, 0x00, 0x00, 0x00, 0x00};  // jmp *0(%rip)
  std::vector<uint8_t> s(BS_STUB_SIZE, 0xcc);
  for (StubEntry e : {StubEntry::Syscall, StubEntry::Rdtsc, StubEntry::Rdtscp}) {
    uint64_t at = veneer(0, e) - BS_STUB_SIZE;
    uint64_t target = entries.of(e);
    std::memcpy(s.data() + at, kJmpRipIndirect, sizeof(kJmpRipIndirect));
    std::memcpy(s.data() + at + sizeof(kJmpRipIndirect), &target, sizeof(target));
  }
  return s;
}

uint64_t veneer(uint64_t area, StubEntry entry) {
  constexpr uint64_t kVeneerSize = 16;
  return area + BS_STUB_SIZE + kVeneerSize * static_cast<uint64_t>(entry);
}

EntryAddresses EntryAddresses::of_trampoline(uint64_t trampoline) {
  return {trampoline, trampoline - BS_TSC_ENTRY_BEFORE_TRAMPOLINE, trampoline - BS_TSCP_ENTRY_BEFORE_TRAMPOLINE};
}

uint64_t EntryAddresses::of(StubEntry e) const {
  switch (e) {
    case StubEntry::Syscall:
      return trampoline;
    case StubEntry::Rdtsc:
      return rdtsc;
    case StubEntry::Rdtscp:
      return rdtscp;
  }
  return trampoline;
}

std::vector<uint8_t> site_code(const Plan& plan, uint64_t stub) {
  std::vector<uint8_t> s;
  put_rel32(s, kJmp, plan.info.site, stub);
  while (s.size() < plan.info.site_length) {
    std::size_t n = std::min(kLongestNop, plan.info.site_length - s.size());
    s.insert(s.end(), kNops[n], kNops[n] + n);
  }
  return s;
}

std::optional<bs_stub_info> stub_info(uint64_t stub, const ReadMemory& read) {
  bs_stub_info info;
  if (stub % BS_STUB_SIZE != 0 || read(stub + BS_STUB_INFO_OFFSET, &info, sizeof(info)) != sizeof(info) ||
      info.magic != BS_STUB_INFO_MAGIC || info.count == 0 || info.count > BS_STUB_MAX_DISPLACED ||
      info.site_length < kRel32Insn || info.copy_length > BS_STUB_MAX_COPY) {
    return std::nullopt;
  }
  uint8_t jump[kRel32Insn];
  if (read(info.site, jump, sizeof(jump)) != sizeof(jump) || jump[0] != kJmp || rel32_target(jump, info.site) != stub) {
    return std::nullopt;
  }
  return info;
}

std::optional<uint64_t> patched_site_stub(uint64_t addr, const std::vector<uint8_t>& bytes, const ReadMemory& read) {
  if (bytes.size() < kRel32Insn || bytes[0] != kJmp) return std::nullopt;
  uint64_t stub = rel32_target(bytes.data(), addr);
  std::optional<bs_stub_info> info = stub_info(stub, read);
  if (!info || info->site != addr || info->site_length != bytes.size()) return std::nullopt;
  return stub;
}

std::optional<uint64_t> traced_equivalent(const bs_stub_info& info, uint64_t stub, uint64_t at) {
  for (uint8_t i = 0; i < info.count; ++i) {
    if (info.site + info.original[i] == at) return traced_copy(stub) + info.copied[i];
  }
  return std::nullopt;
}

std::optional<uint64_t> original_pc(uint64_t pc, const ReadMemory& read) {
  uint64_t stub = pc - pc % BS_STUB_SIZE;
  std::optional<bs_stub_info> info = stub_info(stub, read);
  if (!info) return std::nullopt;
  for (uint64_t copy : {handled_copy(stub), traced_copy(stub)}) {
    if (pc == copy + info->copy_length) return info->site + info->site_length;
    for (uint8_t i = 0; i < info->count; ++i) {
      bool copied = (i + 1 < info->count ? info->copied[i + 1] : info->copy_length) != info->copied[i];
      if (copied && pc == copy + info->copied[i]) return info->site + info->original[i];
    }
  }
  return std::nullopt;
}

}  // namespace backstep::syscall_stub
