// Process-wide state: exit, exec, arch_prctl, prctl, rseq, robust lists.
#include <asm/prctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <set>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// prctl options that only read or set per-process attributes the replay does
// not depend on. Anything else (PR_SET_TSC would undo rdtsc trapping,
// PR_SET_SECCOMP would filter the tracee's calls) stops the recording.
const std::set<int> kHarmlessPrctl = {
    PR_SET_PDEATHSIG, PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_SET_DUMPABLE,
    PR_SET_NAME,      PR_GET_NAME,      PR_CAPBSET_READ, PR_GET_SECUREBITS,
    PR_SET_NO_NEW_PRIVS, PR_GET_NO_NEW_PRIVS, PR_SET_THP_DISABLE, PR_GET_THP_DISABLE,
    PR_SET_CHILD_SUBREAPER, PR_GET_CHILD_SUBREAPER, PR_SET_VMA, PR_GET_TIMERSLACK,
    PR_SET_TIMERSLACK, PR_MCE_KILL_GET, PR_GET_KEEPCAPS, PR_SET_KEEPCAPS,
    PR_CAP_AMBIENT, PR_GET_TID_ADDRESS, PR_SET_MM,
};

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

void enter_prctl(SyscallContext& ctx) {
  if (!kHarmlessPrctl.count(static_cast<int>(ctx.arg(0))) || static_cast<int>(ctx.arg(0)) == PR_SET_MM) {
    ctx.refuse("unsupported prctl option " + std::to_string(ctx.arg(0)));
  }
}

void exit_prctl(SyscallContext& ctx) {
  switch (static_cast<int>(ctx.arg(0))) {
    case PR_GET_NAME: ctx.record_memory(ctx.arg(1), 16); break;
    case PR_GET_PDEATHSIG:
    case PR_GET_CHILD_SUBREAPER: ctx.record_memory(ctx.arg(1), 4); break;
    case PR_GET_TID_ADDRESS: ctx.record_memory(ctx.arg(1), 8); break;
    default: break;
  }
}

void enter_arch_prctl(SyscallContext& ctx) {
  if (ctx.arg(0) == ARCH_SET_CPUID) ctx.refuse("the program changes CPUID faulting");
}

void exit_arch_prctl(SyscallContext& ctx) {
  if (ctx.arg(0) == ARCH_GET_FS || ctx.arg(0) == ARCH_GET_GS) ctx.record_memory(ctx.arg(1), 8);
}

void exit_get_robust_list(SyscallContext& ctx) {
  ctx.record_memory(ctx.arg(1), 8);
  ctx.record_memory(ctx.arg(2), 8);
}

}  // namespace

namespace recorders {
extern const SyscallRecorder exec{refuse_exec, nullptr};
extern const SyscallRecorder rseq{disable_rseq, nullptr};
extern const SyscallRecorder prctl{enter_prctl, exit_prctl};
extern const SyscallRecorder arch_prctl{enter_arch_prctl, exit_arch_prctl};
extern const SyscallRecorder get_robust_list{nullptr, exit_get_robust_list};
// exit/exit_group have no exit stop: RecordSession writes their event at
// entry. restart_syscall is recorded as the call it resumes (RecordSession).
extern const SyscallRecorder process_exit{};
extern const SyscallRecorder restart_syscall{};
}  // namespace recorders

}  // namespace backstep
