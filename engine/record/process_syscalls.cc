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

void enter_process(SyscallContext& ctx) {
  switch (ctx.info.nr) {
    case SYS_execve:
    case SYS_execveat:
      ctx.refuse("the program executes another program; recording exec after start is not supported yet");
    case SYS_rseq:
      // Restartable sequences are aborted by the kernel at preemption points
      // we cannot reproduce; refuse them so libc falls back (ENOSYS).
      ctx.entry.set_syscallno(static_cast<uint64_t>(-1));
      ctx.task.set_regs(ctx.entry);
      ctx.entry_rewritten = true;
      break;
    case SYS_prctl:
      if (!kHarmlessPrctl.count(static_cast<int>(ctx.arg(0))) || static_cast<int>(ctx.arg(0)) == PR_SET_MM) {
        ctx.refuse("unsupported prctl option " + std::to_string(ctx.arg(0)));
      }
      break;
    case SYS_arch_prctl:
      if (ctx.arg(0) == ARCH_SET_CPUID) ctx.refuse("the program changes CPUID faulting");
      break;
    default:
      break;
  }
}

void exit_process(SyscallContext& ctx) {
  switch (ctx.info.nr) {
    case SYS_arch_prctl:
      if (ctx.arg(0) == ARCH_GET_FS || ctx.arg(0) == ARCH_GET_GS) ctx.record_memory(ctx.arg(1), 8);
      break;
    case SYS_prctl:
      switch (static_cast<int>(ctx.arg(0))) {
        case PR_GET_NAME: ctx.record_memory(ctx.arg(1), 16); break;
        case PR_GET_PDEATHSIG:
        case PR_GET_CHILD_SUBREAPER: ctx.record_memory(ctx.arg(1), 4); break;
        case PR_GET_TID_ADDRESS: ctx.record_memory(ctx.arg(1), 8); break;
        default: break;
      }
      break;
    case SYS_get_robust_list:
      ctx.record_memory(ctx.arg(1), 8);
      ctx.record_memory(ctx.arg(2), 8);
      break;
    default:
      break;
  }
}

}  // namespace

const FamilyRecorder kProcessRecorder{enter_process, exit_process};

}  // namespace backstep
