// What the tracer does with a system call of a function the debugger calls
// (diversion.h). The kernel's filter (diversion_sandbox.h) decides which
// calls may run; the tracer asks the same allow-list, so that it can answer
// getpid and gettid with the recorded identity, and tell the user which
// call was refused instead of leaving the function to fail silently.
#include <linux/audit.h>
#include <sched.h>
#include <sys/syscall.h>

#include <string>

#include "engine/core/compat_syscalls.h"
#include "engine/core/syscalls/syscall_table.h"
#include "engine/timeline/diversion.h"
#include "engine/timeline/diversion_sandbox.h"

namespace backstep {

DiversionCall diversion_call(const Registers& entry, uint32_t arch, const DiversionIdentity& who) {
  long nr = static_cast<long>(entry.syscallno());
  DiversionCall call;
  if (arch == AUDIT_ARCH_X86_64 && nr == SYS_getpid) {
    call.action = DiversionCall::Action::Answer;
    call.result = who.pid;
    return call;
  }
  if (arch == AUDIT_ARCH_X86_64 && nr == SYS_gettid) {
    call.action = DiversionCall::Action::Answer;
    call.result = who.tid;
    return call;
  }
  seccomp_data data{};
  data.nr = static_cast<int>(nr);
  data.arch = arch;
  data.instruction_pointer = entry.ip();
  for (int i = 0; i < 6; ++i) data.args[i] = entry.arg(i);
  if (sandbox_allows(data) && data.nr == nr) return call;
  call.action = DiversionCall::Action::Answer;
  call.result = -kSandboxErrno;
  call.refused = true;
  return call;
}

std::string describe_refused_call(const Registers& entry, uint32_t arch) {
  uint64_t nr = entry.syscallno();
  if (arch != AUDIT_ARCH_X86_64) {
    const char* name = compat_syscall_name(nr);
    return "32-bit system call " + std::to_string(nr) + (name ? std::string(" (") + name + ")" : "");
  }
  const sys::SyscallInfo* info = sys::lookup(static_cast<long>(nr));
  return "system call " + std::to_string(nr) + (info ? std::string(" (") + info->name + ")" : "");
}

bool makes_process(const Registers& entry, uint32_t arch) {
  if (arch != AUDIT_ARCH_X86_64) return false;
  switch (entry.syscallno()) {
    case SYS_fork:
    case SYS_vfork:
    case SYS_clone3:
      return true;
    case SYS_clone:
      return !(entry.arg(0) & CLONE_THREAD);
    default:
      return false;
  }
}

}  // namespace backstep
