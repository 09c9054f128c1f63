#include "engine/record/compat_entry.h"

#include <string>

#include "engine/core/compat_syscalls.h"
#include "engine/record/syscall_context.h"

namespace backstep {

std::optional<Registers> compat_entry(Task& task, const Registers& regs, uint64_t event) {
  // The registers alone do not say which table the kernel uses (int 0x80
  // leaves cs as it is); the kernel does, at the price of one more ptrace
  // request per call. A 64-bit `syscall` instruction leaves its return
  // address in rcx and the flags in r11, and the kernel takes the flags it
  // shows from r11, so both match on every 64-bit call: only a call where
  // they do not (int 0x80 leaves rcx and r11 as the program had them) needs
  // the question. A program would have to load rcx with the address after
  // its int 0x80 and r11 with its flags to be taken for a 64-bit call.
  if (regs.raw().rcx == regs.ip() && regs.raw().r11 == regs.raw().eflags) return std::nullopt;
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
