// Process-wide state: exit, exec, arch_prctl, rseq, robust lists (prctl:
// prctl_syscalls.cc).
#include <asm/prctl.h>
#include <sys/syscall.h>

#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// An exec recorded one day must also drop what the recorder knows of the
// descriptors it closes (descriptor_cache.h).
void refuse_exec(SyscallContext& ctx) {
  ctx.refuse("the program executes another program; recording exec after start is not supported yet");
}

// Restartable sequences are aborted by the kernel at preemption points we
// cannot reproduce; refuse them so libc falls back (ENOSYS).
void disable_rseq(SyscallContext& ctx) {
  ctx.entry.set_syscallno(static_cast<uint64_t>(-1));
  ctx.task.set_regs(ctx.entry);
  ctx.entry_rewritten = true;
}

// CPUID faulting is the recorder's (core/cpuid_trap.h, disguise.h): the
// program's ARCH_SET_CPUID only changes what its cpuid instructions do for
// it (answered by the recorder, or a SIGSEGV of its own), so the call does
// not reach the kernel, and ARCH_GET_CPUID answers the program's setting.
// Without faulting, the kernel answers both as it would natively.
void enter_arch_prctl(SyscallContext& ctx) {
  if (ctx.arg(0) == ARCH_SET_CPUID && ctx.session.disguise().cpuid_faulting) {
    ctx.entry.set_syscallno(static_cast<uint64_t>(-1));
    ctx.task.set_regs(ctx.entry);
    ctx.entry_rewritten = true;
  }
}

void exit_arch_prctl(SyscallContext& ctx) {
  if (ctx.arg(0) == ARCH_GET_FS || ctx.arg(0) == ARCH_GET_GS) ctx.record_memory(ctx.arg(1), 8);
  RecorderDisguise& d = ctx.session.disguise();
  if (!d.cpuid_faulting) return;
  if (ctx.arg(0) == ARCH_SET_CPUID) {
    d.program_cpuid_faulting = ctx.arg(1) == 0;
    ctx.exit.set_syscall_result(0);
    ctx.task.set_regs(ctx.exit);
  } else if (ctx.arg(0) == ARCH_GET_CPUID) {
    ctx.exit.set_syscall_result(d.program_cpuid_faulting ? 0 : 1);
    ctx.task.set_regs(ctx.exit);
  }
}

// ptrace: the program is backstep's tracee, so PTRACE_TRACEME fails with
// EPERM (as under any debugger), and requests aimed at processes it does
// not trace fail with ESRCH or EPERM: those results are recorded. A request
// that succeeds (attaching to another process) would make the program a
// tracer of something backstep does not record: refused after the call.
void exit_ptrace(SyscallContext& ctx) {
  if (!ctx.failed()) ctx.refuse_after_call("the program traces another process (ptrace succeeded)");
}

void exit_get_robust_list(SyscallContext& ctx) {
  ctx.record_memory(ctx.arg(1), 8);
  ctx.record_memory(ctx.arg(2), 8);
}

}  // namespace

namespace recorders {
extern const SyscallRecorder exec{refuse_exec, nullptr};
extern const SyscallRecorder rseq{disable_rseq, nullptr};
extern const SyscallRecorder arch_prctl{enter_arch_prctl, exit_arch_prctl};
extern const SyscallRecorder get_robust_list{nullptr, exit_get_robust_list};
extern const SyscallRecorder ptrace{nullptr, exit_ptrace};
// exit/exit_group have no exit stop: RecordSession writes their event at
// entry. restart_syscall is recorded as the call it resumes (RecordSession).
extern const SyscallRecorder process_exit{};
extern const SyscallRecorder restart_syscall{};
}  // namespace recorders

}  // namespace backstep
