#include "engine/core/cpuid_table.h"

#include <cstring>

#include "engine/core/cpuid_trap.h"
#include "engine/core/task.h"
#include "engine/core/x86_decoder.h"
#include "preload/preload_interface.h"

namespace backstep {

bool cpuid_subleaf_matters(uint32_t leaf) {
  // The Intel SDM and AMD APM leaves whose ecx input is unused.
  switch (leaf) {
    case 0x0: case 0x1: case 0x2: case 0x3: case 0x5: case 0x6: case 0xa: case 0x15: case 0x16:
    case 0x19: case 0x1a:
    case 0x80000000: case 0x80000001: case 0x80000002: case 0x80000003: case 0x80000004:
    case 0x80000005: case 0x80000006: case 0x80000007: case 0x80000008: case 0x8000000a:
    case 0x80000019: case 0x8000001a: case 0x8000001b: case 0x8000001c: case 0x8000001e:
    case 0x8000001f: case 0x80000021:
      return false;
    default:
      return true;
  }
}

bool CpuidAnswers::CpuMask::operator<(const CpuMask& o) const {
  return std::memcmp(&set, &o.set, sizeof(set)) < 0;
}

bool CpuidAnswers::mask_of(pid_t pid, CpuMask& out) {
  std::memset(&out.set, 0, sizeof(out.set));
  return sched_getaffinity(pid, sizeof(out.set), &out.set) == 0;
}

Registers CpuidAnswers::emulate(Task& task, const Registers& before, bool hide) {
  auto leaf = static_cast<uint32_t>(before.raw().rax), subleaf = static_cast<uint32_t>(before.raw().rcx);
  CpuMask mask;
  if (!mask_of(task.tid(), mask)) return emulate_cpuid(task, before, hide);
  Key key{mask, leaf, cpuid_subleaf_matters(leaf) ? subleaf : 0, hide};
  auto it = answers_.find(key);
  if (it == answers_.end()) {
    Registers after = emulate_cpuid(task, before, hide);
    Answer a{static_cast<uint32_t>(after.raw().rax), static_cast<uint32_t>(after.raw().rbx),
             static_cast<uint32_t>(after.raw().rcx), static_cast<uint32_t>(after.raw().rdx)};
    it = answers_.emplace(key, a).first;
  }
  Registers after = before;
  after.raw().rax = it->second.eax;
  after.raw().rbx = it->second.ebx;
  after.raw().rcx = it->second.ecx;
  after.raw().rdx = it->second.edx;
  after.set_ip(before.ip() + 2);  // cpuid, or its `int 0x28`
  return after;
}

std::vector<uint8_t> CpuidAnswers::table(pid_t pid, bool hide) const {
  std::vector<uint8_t> out;
  CpuMask mask;
  if (mask_of(pid, mask)) {
    for (const auto& [key, a] : answers_) {
      const auto& [cpus, leaf, subleaf, hidden] = key;
      if (hidden != hide || std::memcmp(&cpus.set, &mask.set, sizeof(mask.set)) != 0) continue;
      uint32_t entry[kCpuidEntrySize / 4] = {
          leaf, subleaf, cpuid_subleaf_matters(leaf) ? kCpuidMatchSubleaf : kCpuidMatchLeaf, 0,
          a.eax, a.ebx, a.ecx, a.edx};
      const auto* bytes = reinterpret_cast<const uint8_t*>(entry);
      out.insert(out.end(), bytes, bytes + sizeof(entry));
    }
  }
  out.resize(out.size() + kCpuidEntrySize, 0);  // the end: match 0
  return out;
}

std::vector<uint8_t> cpuid_routine(uint64_t at, uint64_t table) {
  static_assert(BS_STUB_TRACED_DELTA < 0x80, "the miss path adds the delta as an 8-bit immediate");
  static_assert(kCpuidEntrySize == 0x20 && kCpuidMatchEnd == 0 && kCpuidMatchLeaf == 1, "the code below");
  std::vector<uint8_t> c = {
      0x9c,              //  0: pushfq
      0x56,              //  1: push %rsi
      0x48, 0x8d, 0x35,  //  2: lea table(%rip),%rsi
  };
  x86::append_rel32(c, at + 9, table);
  const uint8_t rest[] = {
      0x83, 0x7e, 0x08, 0x00,  //  9: loop: cmpl $0,8(%rsi)     the end?
      0x74, 0x24,              // 13: je miss (51)
      0x3b, 0x06,              // 15: cmp (%rsi),%eax          the leaf
      0x75, 0x0b,              // 17: jne next (30)
      0x83, 0x7e, 0x08, 0x01,  // 19: cmpl $1,8(%rsi)          any subleaf?
      0x74, 0x0b,              // 23: je hit (36)
      0x3b, 0x4e, 0x04,        // 25: cmp 4(%rsi),%ecx         the subleaf
      0x74, 0x06,              // 28: je hit (36)
      0x48, 0x83, 0xc6, 0x20,  // 30: next: add $32,%rsi
      0xeb, 0xe5,              // 34: jmp loop (9)
      0x8b, 0x46, 0x10,        // 36: hit: mov 16(%rsi),%eax
      0x8b, 0x5e, 0x14,        // 39: mov 20(%rsi),%ebx
      0x8b, 0x4e, 0x18,        // 42: mov 24(%rsi),%ecx
      0x8b, 0x56, 0x1c,        // 45: mov 28(%rsi),%edx
      0x5e,                    // 48: pop %rsi
      0x9d,                    // 49: popfq
      0xc3,                    // 50: ret                     to the handled path
      0x5e,                    // 51: miss: pop %rsi
      0x48, 0x83, 0x44, 0x24, 0x08, BS_STUB_TRACED_DELTA,  // 52: addq $DELTA,8(%rsp)
      0x9d,                    // 58: popfq                   (the flags the add changed)
      0xc3,                    // 59: ret                     to the traced path
  };
  c.insert(c.end(), rest, rest + sizeof(rest));
  return c;
}

}  // namespace backstep
