// Disk quotas: quotactl and quotactl_fd write a struct whose type depends
// on the sub-command. Sub-commands a newer kernel adds are refused.
#include <linux/dqblk_xfs.h>
#include <linux/quota.h>

#include <string>

#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

// Bytes the kernel writes at `addr` for a sub-command (cmd >> SUBCMDSHIFT);
// -1 for a sub-command this code does not know.
int64_t quota_output_size(uint64_t subcmd) {
  switch (subcmd) {
    case Q_SYNC: case Q_QUOTAON: case Q_QUOTAOFF: case Q_SETINFO: case Q_SETQUOTA:
    case Q_XQUOTAON: case Q_XQUOTAOFF: case Q_XSETQLIM: case Q_XQUOTARM: case Q_XQUOTASYNC:
      return 0;
    case Q_GETFMT: return sizeof(uint32_t);
    case Q_GETINFO: return sizeof(if_dqinfo);
    case Q_GETQUOTA: return sizeof(if_dqblk);
    case Q_GETNEXTQUOTA: return sizeof(if_nextdqblk);
    case Q_XGETQUOTA: case Q_XGETNEXTQUOTA: return sizeof(fs_disk_quota);
    case Q_XGETQSTAT: return sizeof(fs_quota_stat);
    case Q_XGETQSTATV: return sizeof(fs_quota_statv);
    default: return -1;
  }
}

// quotactl(cmd, special, id, addr); quotactl_fd(fd, cmd, id, addr).
template <int kCmdArg>
void enter_quota(SyscallContext& ctx) {
  uint64_t subcmd = static_cast<uint32_t>(ctx.arg(kCmdArg)) >> SUBCMDSHIFT;
  if (quota_output_size(subcmd) < 0) ctx.refuse("unsupported quota command " + std::to_string(subcmd));
}

template <int kCmdArg>
void exit_quota(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t subcmd = static_cast<uint32_t>(ctx.arg(kCmdArg)) >> SUBCMDSHIFT;
  ctx.record_memory(ctx.arg(3), static_cast<uint64_t>(quota_output_size(subcmd)));
}

}  // namespace

namespace recorders {
extern const SyscallRecorder quotactl{enter_quota<0>, exit_quota<0>};
extern const SyscallRecorder quotactl_fd{enter_quota<1>, exit_quota<1>};
}  // namespace recorders

}  // namespace backstep
