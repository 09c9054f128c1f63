// Threads: clone and clone3 of a thread,
// set_tid_address and futex. What happens to the new thread itself (its
// first registers, its scheduling) is RecordSession's business
// (record_threads.cc); this file records what the calls write.
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>

#include <optional>

#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// x86-64: clone(flags, stack, parent_tid, child_tid, tls).
constexpr int kFlags = 0, kParentTid = 2, kChildTid = 3;

void check_thread_flags(SyscallContext& ctx, uint64_t flags);

void enter_clone(SyscallContext& ctx) {
  uint64_t flags = ctx.arg(kFlags);
  check_thread_flags(ctx, flags);
  ctx.session.descriptors().creating(ctx.task.tid(), flags);
  if (flags & CLONE_UNTRACED) {
    // The new thread must be traced like the others.
    ctx.entry.set_arg(kFlags, flags & ~static_cast<uint64_t>(CLONE_UNTRACED));
    ctx.task.set_regs(ctx.entry);
    ctx.entry_rewritten = true;
  }
}

void exit_clone(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t flags = ctx.arg(kFlags);
  if (flags & (CLONE_PARENT_SETTID | CLONE_PIDFD)) ctx.record_memory(ctx.arg(kParentTid), 4);
  if (flags & CLONE_CHILD_SETTID) ctx.record_memory(ctx.arg(kChildTid), 4);
  // A new thread inherits its creator's CPU mask (disguise.h).
  RecorderDisguise& disguise = ctx.session.disguise();
  if (disguise.own_affinity.count(ctx.task.tid())) disguise.own_affinity.insert(static_cast<pid_t>(ctx.result()));
  ctx.session.descriptors().created(ctx.task.tid(), static_cast<pid_t>(ctx.result()), flags);
  ctx.session.thread_created(ctx, static_cast<pid_t>(ctx.result()),
                             (flags & CLONE_CHILD_CLEARTID) ? ctx.arg(kChildTid) : 0);
}

// clone3(struct clone_args*, size): the same, with the arguments in memory.
struct Clone3Args {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

std::optional<Clone3Args> read_clone3_args(SyscallContext& ctx) {
  Clone3Args a{};
  if (ctx.arg(1) < sizeof(a)) return std::nullopt;  // the kernel answers EINVAL
  if (ctx.task.read_some(remote_ptr<void>(ctx.arg(0)), &a, sizeof(a)) != sizeof(a)) return std::nullopt;  // EFAULT
  return a;
}

void check_thread_flags(SyscallContext& ctx, uint64_t flags) {
  if (!(flags & CLONE_VM) || (flags & CLONE_VFORK)) {
    ctx.refuse("the program creates a process (fork, vfork, or clone without CLONE_VM); recording "
               "process trees is not supported yet");
  }
  if (!(flags & CLONE_THREAD)) {
    ctx.refuse("clone with CLONE_VM but without CLONE_THREAD (a process that shares memory) is not "
               "supported yet");
  }
}

void enter_clone3(SyscallContext& ctx) {
  std::optional<Clone3Args> a = read_clone3_args(ctx);
  if (!a) return;  // the kernel refuses it; nothing is created
  check_thread_flags(ctx, a->flags);
  ctx.session.descriptors().creating(ctx.task.tid(), a->flags);
  if (a->flags & CLONE_UNTRACED) {
    ctx.refuse("clone3 with CLONE_UNTRACED: the new thread would escape the recording");
  }
}

void exit_clone3(SyscallContext& ctx) {
  if (ctx.failed()) return;
  std::optional<Clone3Args> a = read_clone3_args(ctx);
  if (!a) return;
  if (a->flags & CLONE_PIDFD) ctx.record_memory(a->pidfd, 4);
  if (a->flags & CLONE_PARENT_SETTID) ctx.record_memory(a->parent_tid, 4);
  if (a->flags & CLONE_CHILD_SETTID) ctx.record_memory(a->child_tid, 4);
  ctx.session.descriptors().created(ctx.task.tid(), static_cast<pid_t>(ctx.result()), a->flags);
  ctx.session.thread_created(ctx, static_cast<pid_t>(ctx.result()),
                             (a->flags & CLONE_CHILD_CLEARTID) ? a->child_tid : 0);
}

void exit_set_robust_list(SyscallContext& ctx) {
  if (ctx.failed()) return;
  if (RecordTask* t = ctx.session.record_task(ctx.task.tid())) t->robust_list = ctx.arg(0);
}

void exit_set_tid_address(SyscallContext& ctx) {
  if (RecordTask* t = ctx.session.record_task(ctx.task.tid())) t->clear_child_tid = ctx.arg(0);
}

// What a futex operation writes: the PI operations write the futex word
// (the owner's tid and flags), FUTEX_WAKE_OP the second word, the requeue-PI
// operations both. Waits and wakes write nothing.
void exit_futex(SyscallContext& ctx) {
  int op = static_cast<int>(ctx.arg(1)) & FUTEX_CMD_MASK;
  switch (op) {
    case FUTEX_WAKE_OP:
      ctx.record_memory(ctx.arg(4), 4);
      break;
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
    case FUTEX_TRYLOCK_PI:
    case FUTEX_UNLOCK_PI:
      ctx.record_memory(ctx.arg(0), 4);
      break;
    case FUTEX_WAIT_REQUEUE_PI:
    case FUTEX_CMP_REQUEUE_PI:
      ctx.record_memory(ctx.arg(0), 4);
      ctx.record_memory(ctx.arg(4), 4);
      break;
    default:
      break;
  }
}

}  // namespace

namespace recorders {
extern const SyscallRecorder clone{enter_clone, exit_clone};
extern const SyscallRecorder clone3{enter_clone3, exit_clone3};
extern const SyscallRecorder set_tid_address{nullptr, exit_set_tid_address};
extern const SyscallRecorder set_robust_list{nullptr, exit_set_robust_list};
extern const SyscallRecorder futex{nullptr, exit_futex};
}  // namespace recorders

}  // namespace backstep
