// The program's own seccomp use on top of backstep's filter, which every
// recorded process has (record_session.cc: syscall buffering's, or without
// buffering the one that stops calls through the vsyscall page).
//
// - A filter of the program's own is installed for real: from then on its
//   process stops at every call's entry (PTRACE_SYSCALL, Task::
//   set_syscall_stops), so that the program's filter decides each call as
//   natively (its ERRNO, TRAP and KILL win over our TRACE), and the
//   process's syscall buffers are switched off (recorded as memory the
//   event wrote), since a buffered call would run without the stop.
// - Strict mode, which the kernel refuses on top of a filter, is emulated:
//   the call is skipped and answers 0, and any later call but read, write,
//   exit and rt_sigreturn kills the process with SIGKILL, as the kernel's
//   strict mode does.
// - PR_GET_SECCOMP answers 0 (disabled) while the only filter is ours.
#include <sys/syscall.h>

#include <cstddef>
#include <set>

#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {

void RecordSession::program_filter_installed(SyscallContext& ctx) {
  RecordTask* t = record_task(ctx.task.tid());
  if (!t || !t->process || ctx.failed()) return;
  t->process->own_filter = true;
  std::set<uint64_t> buffers;
  for (auto& [tid, other] : record_tasks_) {
    if (other->process != t->process || other->run == RunState::Gone) continue;
    other->task.set_syscall_stops(true);
    if (other->buffer) buffers.insert(other->buffer);
  }
  for (uint64_t buffer : buffers) {
    uint32_t off = BS_MODE_OFF;
    ctx.task.write_bytes(remote_ptr<void>(buffer + offsetof(bs_buffer_header, mode)), &off, sizeof(off));
    ctx.record_memory(buffer + offsetof(bs_buffer_header, mode), sizeof(off));
  }
}

void RecordSession::skip_strict(SyscallContext& ctx) {
  ctx.entry.set_syscallno(static_cast<uint64_t>(-1));
  ctx.task.set_regs(ctx.entry);
  ctx.entry_rewritten = true;
}

void RecordSession::strict_entered(SyscallContext& ctx) {
  RecordTask* t = record_task(ctx.task.tid());
  if (!t || !t->process) return;
  ctx.exit.set_syscallno(ctx.info.nr);
  ctx.exit.set_syscall_result(0);
  ctx.task.set_regs(ctx.exit);
  t->process->strict = true;
  // Buffered calls would escape the check.
  t->process->own_filter = true;
  program_filter_installed(ctx);
}

bool RecordSession::strict_forbids(RecordTask& t, long nr) {
  if (!t.process || !t.process->strict) return false;
  return nr != SYS_read && nr != SYS_write && nr != SYS_exit && nr != SYS_rt_sigreturn;
}

void RecordSession::disguise_seccomp_mode(SyscallContext& ctx) {
  RecordTask* t = record_task(ctx.task.tid());
  if (!t || !t->process || t->process->own_filter || ctx.failed()) return;
  ctx.exit.set_syscall_result(0);  // SECCOMP_MODE_DISABLED
  ctx.task.set_regs(ctx.exit);
}

}  // namespace backstep
