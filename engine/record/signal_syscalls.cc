// Signal dispositions and masks (old values written back) and sigreturn,
// which restores the whole register and FPU state from the signal frame.
#include <sys/syscall.h>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kSigactionHead = 24;  // handler, flags, restorer; then the mask

void exit_signal(SyscallContext& ctx) {
  switch (ctx.info.nr) {
    case SYS_rt_sigaction:
      if (!ctx.failed() && ctx.arg(3) <= 128) ctx.record_memory(ctx.arg(2), kSigactionHead + ctx.arg(3));
      break;
    case SYS_rt_sigprocmask:
      if (!ctx.failed() && ctx.arg(3) <= 128) ctx.record_memory(ctx.arg(2), ctx.arg(3));
      break;
    case SYS_rt_sigreturn:
      ctx.event.xstate = ctx.task.xstate();
      break;
    default:
      break;
  }
}

}  // namespace

const FamilyRecorder kSignalRecorder{nullptr, exit_signal};

}  // namespace backstep
