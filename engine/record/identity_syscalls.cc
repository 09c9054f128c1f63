// Identity: capget writes the header's version back and one or two
// capability structs, by the version the program asked for; personality
// and sched_getaffinity answer as they would without the recorder
// (disguise.h).
#include <linux/capability.h>
#include <sys/personality.h>

#include <algorithm>

#include "engine/record/record_session.h"

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

// The recorder starts the program with ADDR_NO_RANDOMIZE added to the
// persona it inherits (so that addresses repeat in replay). Natively the
// program would not have that bit: until the program sets a persona of its
// own, the old persona personality(2) returns is shown without it. The
// recorder's own persona is what the program inherited.
constexpr uint64_t kQueryPersona = 0xffffffff;

void exit_personality(SyscallContext& ctx) {
  bool query = (ctx.arg(0) & 0xffffffff) == kQueryPersona;
  if (!ctx.failed() && !ctx.session.disguise().program_set_personality &&
      !(::personality(kQueryPersona) & ADDR_NO_RANDOMIZE)) {
    ctx.exit.set_syscall_result(static_cast<uint64_t>(ctx.result()) & ~static_cast<uint64_t>(ADDR_NO_RANDOMIZE));
    ctx.task.set_regs(ctx.exit);
  }
  if (!query) ctx.session.disguise().program_set_personality = true;
}

// sched_getaffinity of one of the program's threads: until that thread has
// a mask of its own, it is shown the mask the program inherited rather than
// the recorder's one CPU (nproc, Rust's available_parallelism and the like
// count it).
pid_t target_thread(SyscallContext& ctx) {
  auto pid = static_cast<pid_t>(ctx.arg(0));
  return pid == 0 ? ctx.task.tid() : pid;
}

void exit_sched_getaffinity(SyscallContext& ctx) {
  if (ctx.failed()) return;
  auto copied = static_cast<uint64_t>(ctx.result());
  const RecorderDisguise& d = ctx.session.disguise();
  pid_t target = target_thread(ctx);
  bool ours = target == ctx.task.tid() || ctx.session.record_task(target) != nullptr;
  if (ours && d.have_inherited_affinity && !d.own_affinity.count(target)) {
    // The kernel copied `copied` bytes (its mask size); the inherited mask
    // has the same layout, and the recorder's cpu_set_t is at least as big.
    uint64_t n = std::min<uint64_t>(copied, sizeof(d.inherited_affinity));
    ctx.task.write_bytes(remote_ptr<void>(ctx.arg(2)), &d.inherited_affinity, n);
  }
  ctx.record_memory(ctx.arg(2), copied);
}

void exit_sched_setaffinity(SyscallContext& ctx) {
  if (!ctx.failed()) ctx.session.disguise().own_affinity.insert(target_thread(ctx));
}

}  // namespace

namespace recorders {
extern const SyscallRecorder capget{nullptr, exit_capget};
extern const SyscallRecorder personality{nullptr, exit_personality};
extern const SyscallRecorder sched_getaffinity{nullptr, exit_sched_getaffinity};
extern const SyscallRecorder sched_setaffinity{nullptr, exit_sched_setaffinity};
}  // namespace recorders

}  // namespace backstep
