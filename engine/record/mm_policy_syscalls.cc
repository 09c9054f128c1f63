// NUMA memory policy: get_mempolicy writes the mode and a node mask.
#include <string>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kBitsPerLong = 64;
constexpr uint64_t kMaxNodeMaskBytes = 4096;  // the kernel refuses larger (EINVAL)

// get_mempolicy(int *mode, unsigned long *nodemask, maxnode, addr, flags):
// the kernel copies the mask and clears the rest of maxnode bits, in whole
// longs. Recording every long maxnode covers is at least what it wrote.
void exit_get_mempolicy(SyscallContext& ctx) {
  if (ctx.failed()) return;
  ctx.record_memory(ctx.arg(0), sizeof(int));
  uint64_t maxnode = ctx.arg(2);
  uint64_t bytes = (maxnode + kBitsPerLong - 1) / kBitsPerLong * sizeof(uint64_t);
  ctx.record_memory(ctx.arg(1), std::min(bytes, kMaxNodeMaskBytes));
}

}  // namespace

namespace recorders {
extern const SyscallRecorder get_mempolicy{nullptr, exit_get_mempolicy};
}  // namespace recorders

}  // namespace backstep
