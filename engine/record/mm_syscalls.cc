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

void enter_mm(SyscallContext& ctx) {
  uint64_t addr = ctx.arg(0);
  switch (ctx.info.nr) {
    case SYS_mmap:
      if ((ctx.arg(3) & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && overlaps_tool_page(addr, ctx.arg(1))) {
        ctx.refuse("the program maps over backstep's tool page at 0x70000000");
      }
      break;
    case SYS_munmap:
    case SYS_mprotect:
    case SYS_madvise:
    case SYS_mremap:
      if (overlaps_tool_page(addr, ctx.arg(1))) {
        ctx.refuse("the program changes backstep's tool page at 0x70000000");
      }
      if (ctx.info.nr == SYS_madvise && ctx.arg(2) == MADV_FREE) {
        // MADV_FREE pages are reclaimed (or not) at the kernel's whim; make
        // the outcome deterministic: they read as zeros from now on.
        ctx.entry.set_arg(2, MADV_DONTNEED);
        ctx.task.set_regs(ctx.entry);
        ctx.entry_rewritten = true;
      }
      break;
    default:
      break;
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
      ctx.session.forget_mappings(m.start, m.end - m.start);
      ctx.session.track_shared_mapping({m.start, m.end, m.offset, st.st_dev, st.st_ino});
    }
  }
  ctx.event.mappings.push_back(std::move(m));
}

void exit_mm(SyscallContext& ctx) {
  switch (ctx.info.nr) {
    case SYS_mmap: exit_mmap(ctx); break;
    case SYS_mincore:
      if (!ctx.failed()) ctx.record_memory(ctx.arg(2), page_up(ctx.arg(1)) / kPage);
      break;
    case SYS_munmap:
      if (!ctx.failed()) ctx.session.forget_mappings(ctx.arg(0), ctx.arg(1));
      break;
    case SYS_mremap:
      if (!ctx.failed()) ctx.session.forget_mappings(ctx.arg(0), ctx.arg(1));
      break;
    default: break;  // results travel in the registers
  }
}

}  // namespace

const FamilyRecorder kMmRecorder{enter_mm, exit_mm};

}  // namespace backstep
