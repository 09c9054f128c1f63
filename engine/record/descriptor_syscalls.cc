// Calls that close or replace descriptors: close, close_range, dup2, dup3
// and unshare(CLONE_FILES). They record nothing beyond the spec's outputs,
// but what the recorder remembers about the program's descriptors
// (descriptor_cache.h) must be dropped around them.
#include <linux/close_range.h>
#include <sys/syscall.h>
#include <sched.h>

#include <algorithm>

#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"
#include "preload/preload_interface.h"

namespace backstep {
namespace {

void enter_table_change(SyscallContext& ctx) {
  DescriptorCache& fds = ctx.session.descriptors();
  if (ctx.info.nr == SYS_close_range && (ctx.arg(2) & CLOSE_RANGE_UNSHARE)) fds.table_unshared(ctx.task.tid());
  fds.table_changing(ctx.task.tid());
}

void exit_table_change(SyscallContext& ctx) {
  ctx.session.descriptors().table_changed(ctx.task.tid());
  // The descriptors it closed or replaced may no longer be buffered on
  // (record_buffers.cc): their bits go, in every thread's buffer.
  RecordTask* t = ctx.session.record_task(ctx.task.tid());
  if (!t) return;
  switch (ctx.info.nr) {
    case SYS_close: ctx.session.disallow_descriptors(*t, ctx, static_cast<int>(ctx.arg(0)), static_cast<int>(ctx.arg(0))); break;
    case SYS_dup2:
    case SYS_dup3: ctx.session.disallow_descriptors(*t, ctx, static_cast<int>(ctx.arg(1)), static_cast<int>(ctx.arg(1))); break;
    default:  // close_range
      ctx.session.disallow_descriptors(*t, ctx, static_cast<int>(std::min<uint64_t>(ctx.arg(0), BS_MAX_FDS)),
                                       static_cast<int>(std::min<uint64_t>(ctx.arg(1), BS_MAX_FDS - 1)));
      break;
  }
}

// unshare(CLONE_FILES) gives the calling thread a copy of the table; from
// then on, its process's threads may disagree on what a number means.
void enter_unshare(SyscallContext& ctx) {
  if (ctx.arg(0) & CLONE_FILES) ctx.session.descriptors().table_unshared(ctx.task.tid());
}

// A thread with a table of its own no longer agrees with its process's
// buffers: it buffers nothing on descriptors from now on.
void exit_unshare(SyscallContext& ctx) {
  RecordTask* t = ctx.session.record_task(ctx.task.tid());
  if (t && (ctx.arg(0) & CLONE_FILES) && !ctx.failed()) ctx.session.disallow_descriptors(*t, ctx, 0, BS_MAX_FDS - 1);
}

}  // namespace

namespace recorders {
extern const SyscallRecorder descriptor_table{enter_table_change, exit_table_change};
extern const SyscallRecorder unshare{enter_unshare, exit_unshare};
}  // namespace recorders

}  // namespace backstep
