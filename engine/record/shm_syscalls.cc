// System V shared memory: shmat maps a segment, shmdt unmaps it. Replay
// rebuilds both (engine/replay/address_space.cc): a segment is a shared
// object, so that every attachment of one segment shows the same bytes, as
// MAP_SHARED mappings of one file do.
//
// Only this process writes a segment between its system calls (backstep
// records one process; another one writing the segment concurrently would
// be a race the trace cannot hold, as for a shared file mapping).
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "engine/record/shared_anonymous.h"
#include "engine/core/proc_maps.h"
#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kPage = 4096;

dev_t parse_dev(const std::string& dev) {
  char* end = nullptr;
  unsigned long major_part = std::strtoul(dev.c_str(), &end, 16);
  unsigned long minor_part = *end == ':' ? std::strtoul(end + 1, nullptr, 16) : 0;
  return makedev(major_part, minor_part);
}

// The attachment that starts at `start`: the maps entries of one segment
// (same device and inode) that follow each other from there, since a part
// may have been mprotect'ed into an entry of its own.
bool find_attachment(pid_t pid, uint64_t start, MapsEntry& whole) {
  std::vector<MapsEntry> maps = read_proc_maps(pid);
  auto it = std::find_if(maps.begin(), maps.end(), [&](const MapsEntry& e) { return e.start == start; });
  if (it == maps.end() || !it->shared || it->inode == 0) return false;
  whole = *it;
  for (++it; it != maps.end() && it->start == whole.end && it->inode == whole.inode && it->dev == whole.dev &&
             it->offset == whole.offset + (whole.end - whole.start);
       ++it) {
    whole.end = it->end;
  }
  return true;
}

void exit_shmat(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t start = static_cast<uint64_t>(ctx.result());
  MapsEntry seg;
  if (!find_attachment(ctx.task.tid(), start, seg)) {
    ctx.refuse_after_call("shmat succeeded, but its segment is not in the process's maps");
  }
  trace::Mapping m = shared_anonymous_mapping(seg);
  m.shared_object = ctx.session.shared_object_id(parse_dev(seg.dev), static_cast<ino_t>(seg.inode));
  ctx.session.forget_mappings(ctx.task, m.start, m.end - m.start);
  ctx.session.mapped_file_sizes().unmapped(m.start, m.end - m.start);  // SHM_REMAP
  ctx.session.buffer_memory_changed(ctx.task, m.start, m.end - m.start, false);
  ctx.event.mappings.push_back(m);
  // The segment's bytes as the program finds them: a new segment reads as
  // zeros, which replay's fresh memory does too, so only pages holding
  // something are recorded (a huge, barely used segment stays cheap).
  std::vector<uint8_t> page(kPage);
  for (uint64_t at = m.start; at < m.end; at += kPage) {
    size_t got = ctx.task.read_some(remote_ptr<void>(at), page.data(), kPage);
    if (std::any_of(page.begin(), page.begin() + static_cast<long>(got), [](uint8_t b) { return b != 0; })) {
      ctx.record_memory(at, got);
    }
  }
}

// shmdt takes only an address: the extent of what it unmaps is read before
// the call and kept in the event for replay.
void enter_shmdt(SyscallContext& ctx) {
  MapsEntry seg;
  if (!find_attachment(ctx.task.tid(), ctx.arg(0), seg)) return;  // EINVAL: nothing attached there
  ctx.event.mappings.push_back(shared_anonymous_mapping(seg));
}

void exit_shmdt(SyscallContext& ctx) {
  if (ctx.failed()) {
    ctx.event.mappings.clear();
    return;
  }
  if (ctx.event.mappings.empty()) ctx.refuse_after_call("shmdt succeeded where backstep saw no segment");
  const trace::Mapping& m = ctx.event.mappings.front();
  ctx.session.forget_mappings(ctx.task, m.start, m.end - m.start);
  ctx.session.mapped_file_sizes().unmapped(m.start, m.end - m.start);
}

}  // namespace

namespace recorders {
extern const SyscallRecorder shmat{nullptr, exit_shmat};
extern const SyscallRecorder shmdt{enter_shmdt, exit_shmdt};
}  // namespace recorders

}  // namespace backstep
