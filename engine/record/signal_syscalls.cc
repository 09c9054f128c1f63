// Signal dispositions and masks (old values written back) and sigreturn,
// which restores the whole register and FPU state from the signal frame.
#include <sys/syscall.h>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kSigactionHead = 24;  // handler, flags, restorer; then the mask

void exit_rt_sigaction(SyscallContext& ctx) {
  if (!ctx.failed() && ctx.arg(3) <= 128) ctx.record_memory(ctx.arg(2), kSigactionHead + ctx.arg(3));
}

void exit_rt_sigprocmask(SyscallContext& ctx) {
  if (!ctx.failed() && ctx.arg(3) <= 128) ctx.record_memory(ctx.arg(2), ctx.arg(3));
}

void exit_rt_sigreturn(SyscallContext& ctx) { ctx.event.xstate = ctx.task.xstate(); }

}  // namespace

namespace recorders {
extern const SyscallRecorder rt_sigaction{nullptr, exit_rt_sigaction};
extern const SyscallRecorder rt_sigprocmask{nullptr, exit_rt_sigprocmask};
extern const SyscallRecorder rt_sigreturn{nullptr, exit_rt_sigreturn};
}  // namespace recorders

}  // namespace backstep
