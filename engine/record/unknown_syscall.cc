#include "engine/record/unknown_syscall.h"

#include <asm/unistd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>
#include <string>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint32_t kX32Bit = 0x40000000;
// The kernel gives new calls the next free numbers after the table's last
// entry, up to 511 (512 and up are x32 numbers). Such a number may be a call
// this kernel implements and backstep does not know.
constexpr long kLastNativeNr = 511;

const sys::SyscallInfo kUnknown{.nr = -1, .name = "(not in the table)", .family = sys::Family::Misc,
                                .supported = true, .custom = false, .out_count = 0, .outs = {}};

// Whether this kernel runs x32 calls (CONFIG_X86_X32_ABI, and not switched
// off at boot): asked once, with the harmless x32 getpid.
bool kernel_runs_x32() {
  static const bool runs = syscall(kX32Bit | SYS_getpid) == getpid();
  return runs;
}

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

[[noreturn]] void refuse(const std::string& why, uint64_t event) {
  throw RecordingRefused(why + " (event " + std::to_string(event) + ")");
}

}  // namespace

const sys::SyscallInfo& unknown_syscall_info() { return kUnknown; }

void check_unknown_syscall_entry(uint64_t orig_rax, uint64_t event) {
  // x86-64 kernels since 5.x sign-extend the low 32 bits (earlier ones
  // compared all 64): such a number may run a real call on one and not the
  // other, and the rest of backstep compares whole registers.
  const int32_t low = static_cast<int32_t>(orig_rax);
  if (static_cast<uint64_t>(static_cast<int64_t>(low)) != orig_rax) {
    refuse("system call number " + hex(orig_rax) + " has upper bits set, which the kernel ignores", event);
  }
  if (low >= 0 && (static_cast<uint32_t>(low) & kX32Bit) && kernel_runs_x32()) {
    refuse("x32 system call " + hex(orig_rax) + ": this kernel runs x32 calls, which backstep does not record",
           event);
  }
  const long last_listed = static_cast<long>(sys::all_syscalls().back().nr);
  if (low > last_listed && low <= kLastNativeNr) {
    refuse("system call " + std::to_string(low) + " is newer than backstep's syscall table (last: " +
               std::to_string(last_listed) + ")",
           event);
  }
}

void check_unknown_syscall_exit(const SyscallContext& ctx) {
  // The numbers let through cannot name a call on any x86-64 kernel, so the
  // kernel answers -ENOSYS; a seccomp filter of the program's may answer
  // another error instead, or trap the call (SIGSYS), which leaves the
  // number in rax. Anything else would be a call that ran.
  const int64_t nr = static_cast<int64_t>(ctx.entry.syscallno());
  if (!ctx.failed() && ctx.result() != nr) {
    ctx.refuse("the kernel ran system call " + hex(ctx.entry.syscallno()) +
               ", which is not in backstep's table (returned " + std::to_string(ctx.result()) + ")");
  }
}

}  // namespace backstep
