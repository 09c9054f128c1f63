// The address space: every change is recorded so that replay can rebuild it
// (replay executes these calls; see engine/replay/replay_mm.cc).
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <sstream>

#include "engine/core/proc_maps.h"
#include "engine/core/tool_page.h"
#include "engine/record/record_session.h"
#include "engine/record/syscall_context.h"

namespace backstep {
namespace {

constexpr uint64_t kPage = 4096;
uint64_t page_up(uint64_t v) { return (v + kPage - 1) & ~(kPage - 1); }

bool overlaps_tool_page(uint64_t start, uint64_t len) {
  return start < kToolPageAddr + kToolPageSize && start + len > kToolPageAddr;
}

void enter_mmap(SyscallContext& ctx) {
  if ((ctx.arg(3) & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && overlaps_tool_page(ctx.arg(0), ctx.arg(1))) {
    ctx.refuse("the program maps over backstep's tool page at 0x70000000");
  }
}

// munmap, mprotect, mremap and madvise must leave the tool page alone.
void enter_range_change(SyscallContext& ctx) {
  if (overlaps_tool_page(ctx.arg(0), ctx.arg(1))) {
    ctx.refuse("the program changes backstep's tool page at 0x70000000");
  }
}

void enter_madvise(SyscallContext& ctx) {
  enter_range_change(ctx);
  if (ctx.arg(2) == MADV_FREE) {
    // MADV_FREE pages are reclaimed (or not) at the kernel's whim; make
    // the outcome deterministic: they read as zeros from now on.
    ctx.entry.set_arg(2, MADV_DONTNEED);
    ctx.task.set_regs(ctx.entry);
    ctx.entry_rewritten = true;
  }
}

void exit_mmap(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t start = static_cast<uint64_t>(ctx.result());
  trace::Mapping m;
  m.start = start;
  m.end = start + page_up(ctx.arg(1));
  m.prot = static_cast<uint32_t>(ctx.arg(2));
  m.flags = static_cast<uint32_t>(ctx.arg(3));
  m.offset = ctx.arg(5);
  if (m.flags & MAP_ANONYMOUS) {
    m.kind = trace::MappingKind::Anonymous;
  } else {
    pid_t pid = ctx.task.tid();
    std::string fd_link = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(static_cast<int>(ctx.arg(4)));
    char target[4096];
    ssize_t n = readlink(fd_link.c_str(), target, sizeof(target) - 1);
    m.name = n > 0 ? std::string(target, static_cast<size_t>(n)) : fd_link;
    struct stat st {};
    if (stat(fd_link.c_str(), &st) != 0) ctx.refuse("cannot find the file behind mmap's descriptor");
    m.kind = trace::MappingKind::File;
    trace::StoredFile stored = ctx.session.writer().add_file(fd_link, m.name);
    m.file = stored.path;
    m.file_size = stored.size;
    m.file_hash = stored.hash;
    if (m.flags & MAP_SHARED) {
      m.shared_object = ctx.session.shared_object_id(st.st_dev, st.st_ino);
      ctx.session.forget_mappings(m.start, m.end - m.start);
      ctx.session.track_shared_mapping({m.start, m.end, m.offset, st.st_dev, st.st_ino});
    }
  }
  ctx.event.mappings.push_back(std::move(m));
}

void exit_mincore(SyscallContext& ctx) {
  if (!ctx.failed()) ctx.record_memory(ctx.arg(2), page_up(ctx.arg(1)) / kPage);
}

// munmap and mremap: shared file mappings in the old range are gone.
void exit_unmap(SyscallContext& ctx) {
  if (!ctx.failed()) ctx.session.forget_mappings(ctx.arg(0), ctx.arg(1));
}

}  // namespace

// Replay redoes these calls (engine/replay/address_space.cc); their results
// travel in the registers.
namespace recorders {
extern const SyscallRecorder mmap{enter_mmap, exit_mmap};
extern const SyscallRecorder munmap{enter_range_change, exit_unmap};
extern const SyscallRecorder mremap{enter_range_change, exit_unmap};
extern const SyscallRecorder mprotect{enter_range_change, nullptr};
extern const SyscallRecorder madvise{enter_madvise, nullptr};
extern const SyscallRecorder mincore{nullptr, exit_mincore};
extern const SyscallRecorder brk{};
}  // namespace recorders

}  // namespace backstep
