// Threads and processes: clone, clone3, fork and vfork; set_tid_address
// and futex. What happens to the new thread itself (its
// first registers, its scheduling) is RecordSession's business
// (record_threads.cc); this file records what the calls write.
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>

#include <optional>
#include <utility>

#include "engine/record/clone_request.h"
#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// x86-64: clone(flags, stack, parent_tid, child_tid, tls).
constexpr int kFlags = 0, kParentTid = 2, kChildTid = 3;

// clone3(struct clone_args*, size): the same, with the arguments in memory.
struct Clone3Args {
  uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

std::optional<Clone3Args> read_clone3_args(Task& task, const Registers& entry) {
  Clone3Args a{};
  if (entry.arg(1) < sizeof(a)) return std::nullopt;  // the kernel answers EINVAL
  if (task.read_some(remote_ptr<void>(entry.arg(0)), &a, sizeof(a)) != sizeof(a)) return std::nullopt;  // EFAULT
  return a;
}

void check_clone_flags(SyscallContext& ctx, uint64_t flags) {
  if ((flags & CLONE_THREAD) && !(flags & CLONE_VM)) {
    ctx.refuse("clone with CLONE_THREAD but without CLONE_VM is not supported");
  }
}

void enter_clone(SyscallContext& ctx) {
  uint64_t flags = ctx.arg(kFlags);
  check_clone_flags(ctx, flags);
  ctx.session.descriptors().creating(ctx.task.tid(), flags);
  if (flags & CLONE_UNTRACED) {
    // The new task must be traced like the others.
    ctx.entry.set_arg(kFlags, flags & ~static_cast<uint64_t>(CLONE_UNTRACED));
    ctx.task.set_regs(ctx.entry);
    ctx.entry_rewritten = true;
  }
}

void note_created(SyscallContext& ctx, const CloneRequest& c) {
  // A new thread inherits its creator's CPU mask (disguise.h).
  RecorderDisguise& disguise = ctx.session.disguise();
  pid_t child = static_cast<pid_t>(ctx.result());
  if (RecordTask* creator = ctx.session.record_task(ctx.task.tid()); creator && creator->created_child != 0) {
    child = std::exchange(creator->created_child, 0);
  }
  if (disguise.own_affinity.count(ctx.task.tid())) disguise.own_affinity.insert(child);
  ctx.session.thread_created(ctx, child, c.flags, c.parent_tid, c.child_tid);
}

void record_parent_writes(SyscallContext& ctx, const CloneRequest& c) {
  // The parent-tid word and a pidfd are written in the creator's memory;
  // the child-tid word in the new task's, which is the creator's for a
  // thread (a new process's is recorded with its ProcessStart).
  if (c.flags & CLONE_PIDFD) ctx.record_memory(c.pidfd, 4);
  if (c.flags & CLONE_PARENT_SETTID) ctx.record_memory(c.parent_tid, 4);
  if ((c.flags & CLONE_CHILD_SETTID) && (c.flags & CLONE_VM)) ctx.record_memory(c.child_tid, 4);
}

void exit_clone_like(SyscallContext& ctx) {
  if (ctx.failed()) return;
  std::optional<CloneRequest> c = clone_request(ctx.task, ctx.entry);
  if (!c) return;
  record_parent_writes(ctx, *c);
  note_created(ctx, *c);
}

void enter_clone3(SyscallContext& ctx) {
  std::optional<Clone3Args> a = read_clone3_args(ctx.task, ctx.entry);
  if (!a) return;  // the kernel refuses it; nothing is created
  check_clone_flags(ctx, a->flags);
  ctx.session.descriptors().creating(ctx.task.tid(), a->flags);
  if (a->flags & CLONE_UNTRACED) {
    ctx.refuse("clone3 with CLONE_UNTRACED: the new task would escape the recording");
  }
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
extern const SyscallRecorder clone{enter_clone, exit_clone_like};
extern const SyscallRecorder clone3{enter_clone3, exit_clone_like};
extern const SyscallRecorder fork{nullptr, exit_clone_like};
extern const SyscallRecorder vfork{nullptr, exit_clone_like};
extern const SyscallRecorder set_tid_address{nullptr, exit_set_tid_address};
extern const SyscallRecorder set_robust_list{nullptr, exit_set_robust_list};
extern const SyscallRecorder futex{nullptr, exit_futex};
}  // namespace recorders

std::optional<CloneRequest> clone_request(Task& task, const Registers& entry) {
  CloneRequest c;
  switch (static_cast<long>(entry.syscallno())) {
    case SYS_fork: c.flags = SIGCHLD; return c;
    case SYS_vfork: c.flags = CLONE_VM | CLONE_VFORK | SIGCHLD; return c;
    case SYS_clone:
      c.flags = entry.arg(kFlags);
      c.parent_tid = entry.arg(kParentTid);
      c.child_tid = entry.arg(kChildTid);
      c.pidfd = entry.arg(kParentTid);  // clone(2) returns the pidfd there
      return c;
    case SYS_clone3: {
      std::optional<Clone3Args> a = read_clone3_args(task, entry);
      if (!a) return std::nullopt;
      c.flags = a->flags | (a->exit_signal & 0xff);
      c.parent_tid = a->parent_tid;
      c.child_tid = a->child_tid;
      c.pidfd = a->pidfd;
      return c;
    }
    default: return std::nullopt;
  }
}

}  // namespace backstep
