// select and pselect6 rewrite their fd sets (sized by nfds) and timeout.
#include <sys/syscall.h>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

void exit_select(SyscallContext& ctx) {
  uint64_t nfds = ctx.arg(0);
  if (nfds > 65536) return;  // the kernel refused it
  uint64_t set_bytes = (nfds + 63) / 64 * 8;
  if (!ctx.failed()) {
    for (int i = 1; i <= 3; ++i) ctx.record_memory(ctx.arg(i), set_bytes);
  }
  // Linux writes the time left back even when interrupted.
  ctx.record_memory(ctx.arg(4), 16);
}

}  // namespace

namespace recorders {
extern const SyscallRecorder select{nullptr, exit_select};  // select and pselect6
}  // namespace recorders

}  // namespace backstep
