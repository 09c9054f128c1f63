// Calls with an output the spec's columns cannot describe: the LSM calls
// (a buffer whose length the kernel writes back, also when it was too
// small), getxattrat (a buffer named inside its argument struct), reading
// the LDT (writing it is refused), and two calls that stop the recording
// only when they did what replay could not rebuild (process_madvise with
// an advice that changes memory, map_shadow_stack, iopl and ioperm).
#include <errno.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kMaxLsmBuffer = 1u << 20;

// lsm_get_self_attr(attr, ctx, size*, flags) and lsm_list_modules(ids,
// size*, flags): the u32 at size* is written on success and on E2BIG; the
// buffer holds that many bytes on success.
void record_sized_buffer(SyscallContext& ctx, uint64_t buf, uint64_t size_ptr) {
  if (ctx.failed() && ctx.result() != -E2BIG) return;
  ctx.record_memory(size_ptr, sizeof(uint32_t));
  if (ctx.failed()) return;
  uint32_t size = 0;
  if (ctx.task.read_some(remote_ptr<void>(size_ptr), &size, sizeof(size)) != sizeof(size)) return;
  ctx.record_memory(buf, std::min<uint64_t>(size, kMaxLsmBuffer));
}

void exit_lsm_get_self_attr(SyscallContext& ctx) { record_sized_buffer(ctx, ctx.arg(1), ctx.arg(2)); }
void exit_lsm_list_modules(SyscallContext& ctx) { record_sized_buffer(ctx, ctx.arg(0), ctx.arg(1)); }

// getxattrat(dfd, path, at_flags, name, struct xattr_args* args, size):
// the value goes to args->value (u64), its length is the return value.
void exit_getxattrat(SyscallContext& ctx) {
  if (ctx.failed() || ctx.result() == 0) return;
  uint64_t value = 0;
  if (ctx.task.read_some(remote_ptr<void>(ctx.arg(4)), &value, sizeof(value)) != sizeof(value)) return;
  ctx.record_memory(value, static_cast<uint64_t>(ctx.result()));
}

// modify_ldt: functions 0 and 2 read the LDT (the return value's bytes);
// 1 and 0x11 write a descriptor, which replay writes again in the replayed
// process (engine/replay/address_space.cc), from the same memory. Other
// functions fail with ENOSYS, as the kernel answers them.
constexpr uint64_t kLdtRead = 0, kLdtReadDefault = 2;

void exit_modify_ldt(SyscallContext& ctx) {
  if (ctx.failed()) return;
  if (ctx.arg(0) == kLdtRead || ctx.arg(0) == kLdtReadDefault) {
    ctx.record_memory(ctx.arg(1), static_cast<uint64_t>(ctx.result()));
  }
}

// process_madvise: advice that only tunes the kernel (COLD, PAGEOUT,
// WILLNEED, COLLAPSE) changes nothing the program reads. Newer kernels let a
// process give itself any advice; one that changes memory is not redone by
// replay, so the recording stops after it.
bool changes_memory(uint64_t advice) {
  constexpr uint64_t kDontneedLocked = 24, kGuardInstall = 102, kGuardRemove = 103;
  return advice == MADV_DONTNEED || advice == MADV_REMOVE || advice == MADV_FREE || advice == kDontneedLocked ||
         advice == kGuardInstall || advice == kGuardRemove;
}

void exit_process_madvise(SyscallContext& ctx) {
  if (!ctx.failed() && ctx.result() > 0 && changes_memory(ctx.arg(3))) {
    ctx.refuse_after_call("process_madvise changed the program's memory, which replay does not redo");
  }
}

// map_shadow_stack fails on CPUs and kernels without user shadow stacks;
// a shadow stack it made is a mapping replay does not rebuild.
void exit_map_shadow_stack(SyscallContext& ctx) {
  if (!ctx.failed()) ctx.refuse_after_call("map_shadow_stack made a shadow stack, which replay does not rebuild");
}

// iopl and ioperm: giving the program port I/O lets it read ports with
// in/out instructions, outside any system call: refused once it worked.
// Taking it away (level 0, turn_on 0), or a failure, is recorded.
void exit_iopl(SyscallContext& ctx) {
  if (!ctx.failed() && ctx.arg(0) != 0) ctx.refuse_after_call("iopl gave the program port I/O, which bypasses system calls");
}

void exit_ioperm(SyscallContext& ctx) {
  if (!ctx.failed() && ctx.arg(2) != 0) ctx.refuse_after_call("ioperm gave the program port I/O, which bypasses system calls");
}

}  // namespace

namespace recorders {
extern const SyscallRecorder lsm_get_self_attr{nullptr, exit_lsm_get_self_attr};
extern const SyscallRecorder lsm_list_modules{nullptr, exit_lsm_list_modules};
extern const SyscallRecorder getxattrat{nullptr, exit_getxattrat};
extern const SyscallRecorder modify_ldt{nullptr, exit_modify_ldt};
extern const SyscallRecorder process_madvise{nullptr, exit_process_madvise};
extern const SyscallRecorder map_shadow_stack{nullptr, exit_map_shadow_stack};
extern const SyscallRecorder iopl{nullptr, exit_iopl};
extern const SyscallRecorder ioperm{nullptr, exit_ioperm};
}  // namespace recorders

}  // namespace backstep
