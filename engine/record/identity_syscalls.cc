// Identity: capget writes the header's version back and one or two
// capability structs, by the version the program asked for.
#include <linux/capability.h>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kCapHeaderSize = 8;  // u32 version, int pid
constexpr uint64_t kCapDataSize = 12;   // effective, permitted, inheritable

void exit_capget(SyscallContext& ctx) {
  // An unknown version makes the kernel fail with EINVAL after writing the
  // version it prefers into the header: record the header either way.
  ctx.record_memory(ctx.arg(0), kCapHeaderSize);
  if (ctx.failed() || ctx.arg(1) == 0) return;
  uint32_t version = 0;
  if (ctx.task.read_some(remote_ptr<void>(ctx.arg(0)), &version, sizeof(version)) != sizeof(version)) return;
  uint64_t structs = version == _LINUX_CAPABILITY_VERSION_1 ? _LINUX_CAPABILITY_U32S_1 : _LINUX_CAPABILITY_U32S_3;
  ctx.record_memory(ctx.arg(1), structs * kCapDataSize);
}

}  // namespace

namespace recorders {
extern const SyscallRecorder capget{nullptr, exit_capget};
}  // namespace recorders

}  // namespace backstep
