// Patched system call sites (in-process syscall buffering, preload/): which
// sites can be patched, and the bytes of a patch and of its stub, in the
// layout preload/preload_interface.h describes. The recorder writes them
// (engine/record/record_buffers.cc); replay shows a thread that stands in a
// stub to the debugger as standing at the original site, so that gdb
// unwinds and steps as without a patch.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/core/x86_decoder.h"
#include "preload/preload_interface.h"

namespace backstep::syscall_stub {

// The `lea 128(%rsp),%rsp` that starts both of a stub's ways back.
inline constexpr uint64_t kLeaUpLength = 8;
// The bytes to read at a site for plan(): the `syscall` and the most the
// displaced instructions can take.
inline constexpr std::size_t kSiteReadLength = 2 + 15 * BS_STUB_MAX_DISPLACED;

// How a site is patched: the `syscall` and the instructions after it that
// the 5-byte jump to the stub covers (x86 decoding tells how long each is
// and whether it can run in the stub).
struct Plan {
  bs_stub_info info{};  // the site, its length, each instruction's offsets
  std::vector<x86::Instruction> displaced;
  std::vector<uint8_t> original;  // the info.site_length bytes replaced
};

// The plan for the site at `site` whose first bytes (`len` of them, up to
// kSiteReadLength) are `code`; nullopt unless they are a `syscall` (or an
// rdtsc or rdtscp the kernel makes fault, or the `int 0x2e` of a patched
// rdtsc, or the `int 0x2f; nop` of a patched rdtscp, tsc_sites.h: the
// stub's traced path then traps the same way, an rdtscp's as `int 0x2f;
// nop`)
// followed by instructions a stub can run: ones that run anywhere,
// rip-relative ones, jmp and jcc with direct destinations outside the
// patch, or a `ret` followed by alignment padding.
std::optional<Plan> plan(uint64_t site, const uint8_t* code, std::size_t len);

// The same for a cpuid (0f a2), or a cpuid patched to trap (`int 0x28`,
// cpuid_trap.h): a stub whose call goes to cpuid_routine()
// (cpuid_table.h), and whose traced path runs those two bytes.
std::optional<Plan> plan_cpuid(uint64_t site, const uint8_t* code, std::size_t len);

using x86::ReadMemory;

// Whether a direct jump or call within a few KiB of the site may land
// inside the patch, on any instruction it displaces (the
// jump would land in the middle of the patch's own jump). Byte patterns,
// not decoding: a false alarm only leaves a site unpatched.
bool may_be_jumped_into(const Plan& plan, const ReadMemory& read);

// What a stub calls: the library's trampoline for a `syscall`, or the
// entry before it for a patched rdtsc or rdtscp (preload/trampoline.S).
// The values are the veneers' order.
enum class StubEntry { Syscall = 0, Rdtsc = 1, Rdtscp = 2 };
struct EntryAddresses {
  uint64_t trampoline = 0, rdtsc = 0, rdtscp = 0;
  static EntryAddresses of_trampoline(uint64_t trampoline);
  uint64_t of(StubEntry e) const;
};

// What the site at `code` (`len` bytes readable) is, by its first bytes: a
// `syscall`, an rdtsc or rdtscp, or a patched rdtsc (`int 0x2e`) or
// rdtscp (`int 0x2f; nop`, tsc_sites.h).
std::optional<StubEntry> site_entry(const uint8_t* code, std::size_t len);

// The stub area below the executable (tool_page.h) begins with two slots
// of its own: slot 0 counts the slots used, as in the library's area, and
// slot 1 holds the veneers, an absolute jump to each library entry a stub
// calls, 16 bytes apart in StubEntry's order. Its stubs call a veneer,
// within their rel32 reach, instead of the library.
inline constexpr uint64_t kExecutableAreaFirstStub = 2;
// The BS_STUB_SIZE bytes of slot 1, jumping to each of `entries`.
std::vector<uint8_t> veneer_slot(const EntryAddresses& entries);
// Where the stubs of the executable's area at `area` call for `entry`.
uint64_t veneer(uint64_t area, StubEntry entry);

// Where the parts of a stub at `stub` begin.
struct Layout {
  uint64_t stub = 0;
  uint64_t handled = 0;  // R: where the trampoline returns when it handled the call
  uint64_t traced = 0;   // R + BS_STUB_TRACED_DELTA
  uint64_t after_traced_syscall = 0;  // the traced path, right after its `syscall`
};
Layout layout(uint64_t stub);

// Whether every jump, call and rip-relative operand of the plan's patch
// reaches (rel32) with its stub at `stub`.
bool reachable(const Plan& plan, uint64_t stub, uint64_t trampoline);

// The BS_STUB_SIZE bytes of the stub at `stub` for `plan`, and the
// info.site_length bytes that replace the site.
std::vector<uint8_t> stub_code(const Plan& plan, uint64_t stub, uint64_t trampoline);
std::vector<uint8_t> site_code(const Plan& plan, uint64_t stub);

// The stub a patched site's bytes jump to, if `bytes` written at `addr`
// start with a jump to a stub that names `addr` as its site.
std::optional<uint64_t> patched_site_stub(uint64_t addr, const std::vector<uint8_t>& bytes, const ReadMemory& read);
// The description at the end of the stub at `stub`, if it is one and its
// site jumps to it.
std::optional<bs_stub_info> stub_info(uint64_t stub, const ReadMemory& read);

// A thread that stands at `at` inside a site about to be patched (right
// after its `syscall`, or at a later displaced instruction) goes on from
// here in the stub's traced path instead; nullopt if `at` is not such a
// place.
std::optional<uint64_t> traced_equivalent(const bs_stub_info& info, uint64_t stub, uint64_t at);

// If `pc` lies in a stub's copy of the displaced instructions (on either
// path, right after the red-zone step or the traced `syscall`, at any
// instruction of the copy, or at the jump back), the address in the
// original code it stands for; registers there are the ones the unpatched
// code would have.
std::optional<uint64_t> original_pc(uint64_t pc, const ReadMemory& read);

}  // namespace backstep::syscall_stub
