// Calls that close or replace descriptors: close, close_range, dup2, dup3
// and unshare(CLONE_FILES). They record nothing beyond the spec's outputs,
// but what the recorder remembers about the program's descriptors
// (descriptor_cache.h) must be dropped around them.
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <sched.h>

#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

void enter_table_change(SyscallContext& ctx) {
  DescriptorCache& fds = ctx.session.descriptors();
  if (ctx.info.nr == SYS_close_range && (ctx.arg(2) & CLOSE_RANGE_UNSHARE)) fds.table_unshared(ctx.task.tid());
  fds.table_changing(ctx.task.tid());
}

void exit_table_change(SyscallContext& ctx) { ctx.session.descriptors().table_changed(ctx.task.tid()); }

// unshare(CLONE_FILES) gives the calling thread a copy of the table; from
// then on, its process's threads may disagree on what a number means.
void enter_unshare(SyscallContext& ctx) {
  if (ctx.arg(0) & CLONE_FILES) ctx.session.descriptors().table_unshared(ctx.task.tid());
}

}  // namespace

namespace recorders {
extern const SyscallRecorder descriptor_table{enter_table_change, exit_table_change};
extern const SyscallRecorder unshare{enter_unshare, nullptr};
}  // namespace recorders

}  // namespace backstep
