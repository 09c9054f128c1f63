// select and pselect6 rewrite their fd sets (sized by nfds) and timeout.
#include <sys/syscall.h>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

void exit_poll(SyscallContext& ctx) {
  switch (ctx.info.nr) {
    case SYS_select:
    case SYS_pselect6: {
      uint64_t nfds = ctx.arg(0);
      if (nfds > 65536) return;  // the kernel refused it
      uint64_t set_bytes = (nfds + 63) / 64 * 8;
      if (!ctx.failed()) {
        for (int i = 1; i <= 3; ++i) ctx.record_memory(ctx.arg(i), set_bytes);
      }
      // Linux writes the time left back even when interrupted.
      ctx.record_memory(ctx.arg(4), 16);
      break;
    }
    default:
      break;
  }
}

}  // namespace

const FamilyRecorder kPollRecorder{nullptr, exit_poll};

}  // namespace backstep
