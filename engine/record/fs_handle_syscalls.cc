// File handles: name_to_handle_at writes a struct file_handle whose length
// is in the struct itself, and a mount id.
#include <errno.h>
#include <fcntl.h>

#include <algorithm>
#include <cstdint>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kHandleHead = 8;       // u32 handle_bytes, int handle_type
constexpr uint32_t kMaxHandleBytes = 128;  // MAX_HANDLE_SZ
constexpr uint64_t kMountIdUnique = 0x1;   // AT_HANDLE_MNT_ID_UNIQUE: a u64 mount id

void exit_name_to_handle_at(SyscallContext& ctx) {
  uint64_t handle = ctx.arg(2);
  if (ctx.result() == -EOVERFLOW) {
    // The buffer was too small: the kernel wrote the size it needs.
    ctx.record_memory(handle, kHandleHead);
    return;
  }
  if (ctx.failed()) return;
  uint32_t bytes = 0;
  ctx.task.read_some(remote_ptr<void>(handle), &bytes, sizeof(bytes));
  ctx.record_memory(handle, kHandleHead + std::min(bytes, kMaxHandleBytes));
  ctx.record_memory(ctx.arg(3), (ctx.arg(4) & kMountIdUnique) ? 8 : 4);
}

}  // namespace

namespace recorders {
extern const SyscallRecorder name_to_handle_at{nullptr, exit_name_to_handle_at};
}  // namespace recorders

}  // namespace backstep
