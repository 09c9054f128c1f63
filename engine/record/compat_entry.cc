#include "engine/record/compat_entry.h"

#include <string>

#include "engine/core/compat_syscalls.h"
#include "engine/record/syscall_context.h"

namespace backstep {

std::optional<Registers> compat_entry(Task& task, const Registers& regs, uint64_t event) {
  // The registers alone do not say which table the kernel uses (int 0x80
  // leaves cs as it is); the kernel does.
  if (task.syscall_info().arch != kAuditArchI386) return std::nullopt;
  uint64_t nr = static_cast<uint32_t>(regs.syscallno());  // the kernel reads eax only
  if (native_twin(nr)) return as_native_call(regs);
  const char* name = compat_syscall_name(nr);
  throw RecordingRefused("32-bit system call " + std::to_string(nr) + (name ? std::string(" (") + name + ")" : "") +
                         ", made with int 0x80 or from 32-bit code, is not supported: the 32-bit calls "
                         "backstep records are " + compat_calls_with_twins() + " (event " +
                         std::to_string(event) + ")");
}

}  // namespace backstep
