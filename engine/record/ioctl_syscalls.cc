// ioctl: what a request writes comes from its _IOC encoding or, for the
// requests that do not follow it, from the table in ioctl_table.cc. Every
// request runs; what it wrote is recorded once it succeeded. A failed call
// wrote nothing: its errno is in the registers the event keeps.
//
// A successful request whose output cannot be known (an old-style number not
// in the table, or one that writes through pointers inside its argument)
// stops the recording at that call: the trace keeps everything before it,
// and replay runs the program up to the call.
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <net/if.h>
#include <sys/syscall.h>

#include <algorithm>

#include "engine/record/ioctl_table.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

template <typename T>
bool read_struct(SyscallContext& ctx, uint64_t addr, T& out) {
  return ctx.task.read_some(remote_ptr<void>(addr), &out, sizeof(out)) == sizeof(out);
}

void record_ifconf(SyscallContext& ctx, uint64_t addr) {
  ctx.record_memory(addr, sizeof(struct ifconf));
  struct ifconf conf {};
  if (!read_struct(ctx, addr, conf) || conf.ifc_len <= 0) return;
  // A null buffer asks for the length only (set above).
  ctx.record_memory(reinterpret_cast<uint64_t>(conf.ifc_buf), static_cast<uint64_t>(conf.ifc_len));
}

void record_fiemap(SyscallContext& ctx, uint64_t addr) {
  struct fiemap map {};
  if (!read_struct(ctx, addr, map)) return;
  uint64_t extents = std::min(map.fm_mapped_extents, map.fm_extent_count);
  ctx.record_memory(addr, sizeof(struct fiemap) + extents * sizeof(struct fiemap_extent));
}

void record_dedupe_range(SyscallContext& ctx, uint64_t addr) {
  struct file_dedupe_range range {};
  if (!read_struct(ctx, addr, range)) return;
  ctx.record_memory(addr, sizeof(range) + uint64_t{range.dest_count} * sizeof(struct file_dedupe_range_info));
}

[[noreturn]] void refuse_after(SyscallContext& ctx, const std::string& why) {
  std::string text = "ioctl request " + ioctl::describe(static_cast<uint32_t>(ctx.arg(1))) + " on fd " +
                     std::to_string(static_cast<int>(ctx.arg(0))) + " succeeded, but " + why;
  ctx.refuse_after_call(text);
}

void exit_ioctl(SyscallContext& ctx) {
  if (ctx.failed()) return;
  ioctl::Rule rule = ioctl::rule_for(static_cast<uint32_t>(ctx.arg(1)));
  uint64_t arg = ctx.arg(2);
  switch (rule.kind) {
    case ioctl::Output::None: break;
    case ioctl::Output::Fixed: ctx.record_memory(arg, rule.size); break;
    case ioctl::Output::Ifconf: record_ifconf(ctx, arg); break;
    case ioctl::Output::Fiemap: record_fiemap(ctx, arg); break;
    case ioctl::Output::DedupeRange: record_dedupe_range(ctx, arg); break;
    case ioctl::Output::Unknown:
      refuse_after(ctx, "backstep does not know what it writes (an old-style request it has no rule for)");
    case ioctl::Output::Refused: refuse_after(ctx, rule.why);
  }
}

}  // namespace

namespace recorders {
extern const SyscallRecorder ioctl{nullptr, exit_ioctl};
}  // namespace recorders

}  // namespace backstep
