#include "engine/core/cpuid_trap.h"

#include <asm/prctl.h>
#include <cpuid.h>
#include <sched.h>
#include <sys/syscall.h>

#include <cstring>
#include <iterator>

#include "engine/core/task.h"
#include "engine/core/tool_page.h"
#include "engine/core/tsc_sites.h"
#include "engine/core/x86_decoder.h"

namespace backstep {
namespace {

constexpr uint32_t kLeafFeatures = 1, kLeafExtendedFeatures = 7;
constexpr uint32_t kRdrandEcx = 1u << 30;                      // leaf 1, ecx
constexpr uint32_t kHleEbx = 1u << 4, kRtmEbx = 1u << 11;     // leaf 7.0, ebx
constexpr uint32_t kRdseedEbx = 1u << 18;                      // leaf 7.0, ebx
constexpr uint64_t kCpuidLength = 2;
constexpr uint8_t kCpuid[] = {0x0f, 0xa2};
// `int 0x28`: an interrupt gate user code may not use (a general-protection
// fault); next to the vectors of the rdtsc and RDRAND patches
// (tsc_sites.cc, random_sites.cc).
constexpr uint8_t kPatchedCpuid[] = {0xcd, 0x28};

// Runs `body` with this thread restricted to the CPUs `pid` may run on.
template <typename F>
void on_cpus_of(pid_t pid, F body) {
  cpu_set_t mine, theirs;
  bool moved = sched_getaffinity(0, sizeof(mine), &mine) == 0 &&
               sched_getaffinity(pid, sizeof(theirs), &theirs) == 0 &&
               sched_setaffinity(0, sizeof(theirs), &theirs) == 0;
  body();
  if (moved) sched_setaffinity(0, sizeof(mine), &mine);
}

}  // namespace

bool enable_cpuid_faulting(Task& task, std::vector<siginfo_t>* held) {
  if (held) return tool_syscall_holding(task, *held, SYS_arch_prctl, {ARCH_SET_CPUID, 0, 0, 0, 0, 0}) == 0;
  return tool_syscall(task, SYS_arch_prctl, ARCH_SET_CPUID, 0) == 0;
}

bool is_cpuid(const uint8_t* code, std::size_t n, bool patched) {
  if (n < kCpuidLength) return false;
  return std::memcmp(code, kCpuid, kCpuidLength) == 0 || (patched && std::memcmp(code, kPatchedCpuid, kCpuidLength) == 0);
}

bool is_cpuid_at(Task& task, uint64_t ip, bool patched) {
  uint8_t insn[kCpuidLength] = {};
  return is_cpuid(insn, task.read_some(remote_ptr<void>(ip), insn, sizeof(insn)), patched);
}

void scan_cpuid_sites(const uint8_t* code, std::size_t size, uint64_t file_offset, std::vector<uint64_t>& out) {
  if (!memmem(code, size, kCpuid, sizeof(kCpuid))) return;  // most sections: no decoding
  x86::for_each_instruction(code, size, file_offset, [&](std::size_t at, std::size_t len) {
    if (len == kCpuidLength && std::memcmp(code + at, kCpuid, kCpuidLength) == 0) out.push_back(file_offset + at);
  });
}

std::vector<uint64_t> find_cpuid_sites(int fd) {
  std::vector<uint64_t> sites;
  each_code_section(fd, [&](const uint8_t* code, std::size_t size, uint64_t offset) {
    scan_cpuid_sites(code, size, offset, sites);
  });
  return sites;
}

std::vector<uint8_t> cpuid_site_patch() { return {std::begin(kPatchedCpuid), std::end(kPatchedCpuid)}; }

void mask_cpuid_leaf(uint32_t leaf, uint32_t subleaf, uint32_t& eax, uint32_t& ebx, uint32_t& ecx, uint32_t& edx) {
  (void)eax;
  (void)edx;
  if (leaf == kLeafFeatures) ecx &= ~kRdrandEcx;
  if (leaf == kLeafExtendedFeatures && subleaf == 0) ebx &= ~(kRdseedEbx | kHleEbx | kRtmEbx);
}

Registers emulate_cpuid(Task& task, const Registers& before, bool hide) {
  Registers after = before;
  auto leaf = static_cast<uint32_t>(before.raw().rax), subleaf = static_cast<uint32_t>(before.raw().rcx);
  uint32_t eax = 0, ebx = 0, ecx = 0, edx = 0;
  on_cpus_of(task.tid(), [&] { __cpuid_count(leaf, subleaf, eax, ebx, ecx, edx); });
  if (hide) mask_cpuid_leaf(leaf, subleaf, eax, ebx, ecx, edx);
  // cpuid writes the 32-bit registers, which clears their upper halves.
  after.raw().rax = eax;
  after.raw().rbx = ebx;
  after.raw().rcx = ecx;
  after.raw().rdx = edx;
  after.set_ip(before.ip() + kCpuidLength);
  return after;
}

}  // namespace backstep
