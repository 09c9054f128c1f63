// Process-family calls that reach into memory: process_vm_readv/writev,
// and seccomp, whose filters stay the program's own business.
#include <linux/seccomp.h>
#include <sys/syscall.h>

#include <algorithm>
#include <string>

#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// process_vm_readv fills the caller's local iovecs with the bytes it
// returns, whatever process it read from.
void exit_process_vm_readv(SyscallContext& ctx) {
  if (!ctx.failed()) ctx.record_iovecs(ctx.arg(1), ctx.arg(2), static_cast<uint64_t>(ctx.result()));
}

// process_vm_writev changes the remote iovecs: the program's own memory
// when it writes into itself, another recorded process's when it names one
// (recorded for that process), or memory outside the recording.
void exit_process_vm_writev(SyscallContext& ctx) {
  if (ctx.failed() || ctx.result() == 0) return;
  auto pid = static_cast<pid_t>(ctx.arg(0));
  RecordTask* target = ctx.session.record_task(pid);
  RecordTask* self = ctx.session.record_task(ctx.task.tid());
  if (target && self && target->process == self->process) {
    ctx.record_iovecs(ctx.arg(3), ctx.arg(4), static_cast<uint64_t>(ctx.result()));
  } else if (target) {
    // The remote iovecs, as far as the call wrote.
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    uint64_t left = static_cast<uint64_t>(ctx.result());
    for (uint64_t i = 0; i < ctx.arg(4) && left > 0 && i < 1024; ++i) {
      uint64_t iov[2] = {};
      if (ctx.task.read_some(remote_ptr<void>(ctx.arg(3) + i * 16), iov, sizeof(iov)) != sizeof(iov)) break;
      uint64_t len = std::min(iov[1], left);
      if (len) ranges.emplace_back(iov[0], len);
      left -= len;
    }
    ctx.session.record_write_into(ctx, pid, ranges);
  }
}

// A filter the program installs is installed for real while recording, and
// acts on its later calls as it would natively (the recorder's ptrace stops
// come first; an ERRNO answer is that call's recorded result, a TRAP is a
// recorded SIGSYS, a KILL the recorded death). Replay never performs the
// call, so the replayed process runs without the filter and the recorded
// results stand in for it. Operations a newer kernel adds are refused: they
// may write.
void enter_seccomp(SyscallContext& ctx) {
  switch (ctx.arg(0)) {
    case SECCOMP_SET_MODE_STRICT:
      ctx.session.skip_strict(ctx);
      return;
    case SECCOMP_SET_MODE_FILTER: case SECCOMP_GET_ACTION_AVAIL:
    case SECCOMP_GET_NOTIF_SIZES:
      return;
    default: ctx.refuse("unsupported seccomp operation " + std::to_string(ctx.arg(0)));
  }
}

void exit_seccomp(SyscallContext& ctx) {
  if (ctx.arg(0) == SECCOMP_SET_MODE_STRICT && ctx.entry_rewritten) ctx.session.strict_entered(ctx);
  if (ctx.arg(0) == SECCOMP_SET_MODE_FILTER) ctx.session.program_filter_installed(ctx);
  if (!ctx.failed() && ctx.arg(0) == SECCOMP_GET_NOTIF_SIZES) {
    ctx.record_memory(ctx.arg(2), sizeof(seccomp_notif_sizes));
  }
}

}  // namespace

namespace recorders {
extern const SyscallRecorder process_vm_readv{nullptr, exit_process_vm_readv};
extern const SyscallRecorder process_vm_writev{nullptr, exit_process_vm_writev};
extern const SyscallRecorder seccomp{enter_seccomp, exit_seccomp};
}  // namespace recorders

}  // namespace backstep
