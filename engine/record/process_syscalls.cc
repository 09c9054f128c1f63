// Process-wide state: exit, exec, arch_prctl, rseq, robust lists (prctl:
// prctl_syscalls.cc).
#include <asm/prctl.h>
#include <sys/syscall.h>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

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

void enter_arch_prctl(SyscallContext& ctx) {
  if (ctx.arg(0) == ARCH_SET_CPUID) ctx.refuse("the program changes CPUID faulting");
}

void exit_arch_prctl(SyscallContext& ctx) {
  if (ctx.arg(0) == ARCH_GET_FS || ctx.arg(0) == ARCH_GET_GS) ctx.record_memory(ctx.arg(1), 8);
  if (ctx.arg(0) == ARCH_GET_CPUID && ctx.result() == 0) {
    // The recorder made cpuid fault (core/cpuid_trap.h); the program, which
    // cannot change that itself (ARCH_SET_CPUID is refused), would find the
    // instruction enabled.
    ctx.exit.set_syscall_result(1);
    ctx.task.set_regs(ctx.exit);
  }
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
// exit/exit_group have no exit stop: RecordSession writes their event at
// entry. restart_syscall is recorded as the call it resumes (RecordSession).
extern const SyscallRecorder process_exit{};
extern const SyscallRecorder restart_syscall{};
}  // namespace recorders

}  // namespace backstep
