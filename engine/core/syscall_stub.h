// Patched system call sites (in-process syscall buffering, preload/): the
// bytes of a patch and of its stub, in the layout preload/preload_interface.h
// describes. The recorder writes them (engine/record/record_buffers.cc);
// replay shows a thread that stands in a stub to the debugger as standing
// at the original site, so that gdb unwinds and steps as without a patch.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace backstep::syscall_stub {

// `syscall` plus the displaced instruction: what a patch replaces.
inline constexpr uint64_t kSiteLength = 8;
inline constexpr uint64_t kTailLength = 6;
// The `lea 128(%rsp),%rsp` that starts both of a stub's ways back.
inline constexpr uint64_t kLeaUpLength = 8;

// Whether the kSiteLength bytes at a site are `syscall` followed by an
// instruction a patch may displace into a stub: glibc's error checks,
// `cmp $-4096,%rax` and `cmp $-4095,%rax` (nothing jumps between a
// syscall and its check, so the 8 bytes can become one jump).
bool patchable(const uint8_t* site_bytes);

// Where the parts of a stub at `stub` begin.
struct Layout {
  uint64_t stub = 0;
  uint64_t handled = 0;  // R: where the trampoline returns when it handled the call
  uint64_t traced = 0;   // R + BS_STUB_TRACED_DELTA
  uint64_t after_traced_syscall = 0;  // the traced path, right after its `syscall`
};
Layout layout(uint64_t stub);

// Whether every jump and call of a patch at `site` with its stub at `stub`
// reaches (rel32).
bool reachable(uint64_t site, uint64_t stub, uint64_t trampoline);

// The BS_STUB_SIZE bytes of the stub for the site whose bytes are
// `site_bytes` (patchable), and the kSiteLength bytes that replace them.
std::vector<uint8_t> stub_code(uint64_t stub, uint64_t site, uint64_t trampoline, const uint8_t* site_bytes);
std::vector<uint8_t> site_code(uint64_t site, uint64_t stub);
// If `bytes` written at `addr` are a patched site (site_code), its stub.
std::optional<uint64_t> patched_site_stub(uint64_t addr, const std::vector<uint8_t>& bytes);

// Reads program memory: bytes read.
using ReadMemory = std::function<std::size_t(uint64_t addr, void* buf, std::size_t len)>;

// If `pc` lies on a stub's traced path after its `syscall` (right after
// it, or at the jump back), the address in the original code it stands
// for (site + 2, or site + kSiteLength); registers there are the ones the
// unpatched code would have.
std::optional<uint64_t> original_pc(uint64_t pc, const ReadMemory& read);
// The site of the stub whose displaced instruction is at `at_tail`, on its
// traced or its handled path; nullopt if that is not such a place.
std::optional<uint64_t> site_of(uint64_t at_tail, bool traced, const ReadMemory& read);

}  // namespace backstep::syscall_stub
