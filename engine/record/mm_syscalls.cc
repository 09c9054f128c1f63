// The address space: every change is recorded so that replay can rebuild it
// (replay executes these calls; see engine/replay/address_space.cc).
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <vector>

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

// The stub area the recorder mapped below the executable (tool_page.h),
// where it overlaps [start, start + len): its address, else 0.
uint64_t overlapped_stub_area(SyscallContext& ctx, uint64_t start, uint64_t len) {
  RecordTask* t = ctx.session.record_task(ctx.task.tid());
  uint64_t area = t && t->process ? t->process->exe_stub_area : 0;
  return area && start < area + BS_STUB_AREA_SIZE && start + len > area ? area : 0;
}

std::string hex(uint64_t v) {
  std::ostringstream os;
  os << "0x" << std::hex << v;
  return os.str();
}

void enter_mmap(SyscallContext& ctx) {
  if ((ctx.arg(3) & (MAP_FIXED | MAP_FIXED_NOREPLACE)) && overlaps_tool_page(ctx.arg(0), ctx.arg(1))) {
    ctx.refuse("the program maps over backstep's tool page at 0x70000000");
  }
  // MAP_FIXED_NOREPLACE fails there (EEXIST) in record and replay alike.
  if (ctx.arg(3) & MAP_FIXED) {
    if (uint64_t area = overlapped_stub_area(ctx, ctx.arg(0), ctx.arg(1))) {
      ctx.refuse("the program maps over backstep's stub area below its executable at " + hex(area));
    }
  }
}

// munmap, mprotect, mremap and madvise must leave the tool page and the
// executable's stub area alone (the patched sites jump into the latter).
void enter_range_change(SyscallContext& ctx) {
  if (overlaps_tool_page(ctx.arg(0), ctx.arg(1))) {
    ctx.refuse("the program changes backstep's tool page at 0x70000000");
  }
  if (uint64_t area = overlapped_stub_area(ctx, ctx.arg(0), ctx.arg(1))) {
    ctx.refuse("the program changes backstep's stub area below its executable at " + hex(area));
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

// /dev/zero (character device 1:5): mapping it makes anonymous memory,
// private or shared, exactly as MAP_ANONYMOUS would.
bool is_dev_zero(const struct stat& st) {
  return S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 5;
}

// What a mapping's descriptor refers to, for a refusal: "character device
// /dev/fb0 (29:0)".
std::string describe_unmappable(const struct stat& st, const std::string& name) {
  std::ostringstream os;
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
    os << (S_ISCHR(st.st_mode) ? "character" : "block") << " device " << name << " (" << major(st.st_rdev)
       << ":" << minor(st.st_rdev) << ")";
  } else {
    os << name << " (not a regular file)";
  }
  return os.str();
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
  // Whatever was mapped there is gone (MAP_FIXED).
  ctx.session.mapped_file_sizes().unmapped(m.start, m.end - m.start);
  ctx.session.buffer_memory_changed(ctx.task, m.start, m.end - m.start, false);
  if (m.flags & MAP_ANONYMOUS) {
    m.kind = trace::MappingKind::Anonymous;
    ctx.event.mappings.push_back(std::move(m));
    return;
  }
  pid_t pid = ctx.task.tid();
  std::string fd_link = "/proc/" + std::to_string(pid) + "/fd/" + std::to_string(static_cast<int>(ctx.arg(4)));
  char target[4096];
  ssize_t n = readlink(fd_link.c_str(), target, sizeof(target) - 1);
  m.name = n > 0 ? std::string(target, static_cast<size_t>(n)) : fd_link;
  struct stat st {};
  if (stat(fd_link.c_str(), &st) != 0) ctx.refuse("cannot find the file behind mmap's descriptor");
  if (is_dev_zero(st)) {
    m.kind = trace::MappingKind::Anonymous;
    m.flags |= MAP_ANONYMOUS;
    m.offset = 0;
    ctx.event.mappings.push_back(std::move(m));
    return;
  }
  if (!S_ISREG(st.st_mode)) {
    // A device's or a kernel object's memory (frame buffers, perf rings,
    // io_uring queues) is not a file whose contents the trace could hold.
    ctx.refuse("cannot record a mapping of " + describe_unmappable(st, m.name) +
               ": its memory belongs to the device or kernel object, not to a file backstep can copy");
  }
  m.kind = trace::MappingKind::File;
  trace::StoredFile stored = ctx.session.writer().add_file(fd_link, m.name);
  m.file = stored.path;
  m.file_size = stored.size;
  m.file_hash = stored.hash;
  // Shared mappings, and private ones past the file's end (their last pages
  // fault until the file grows), are mapped in replay over an object that
  // follows the file's size, as long as they exist (mapped_file_sizes.h).
  // write(2) to the file changes what they show (a private one: in the
  // pages it has not copied; the recorder reads what the mapping shows, so
  // it records the truth either way).
  bool past_end = m.offset + (m.end - m.start) > page_up(stored.size);
  ctx.session.forget_mappings(ctx.task, m.start, m.end - m.start);
  uint64_t object = ctx.session.shared_object_id(st.st_dev, st.st_ino);
  if ((m.flags & MAP_SHARED) || past_end) {
    m.shared_object = object;
    // A private one matters past the file's end only.
    uint64_t in_file = page_up(stored.size) > m.offset ? page_up(stored.size) - m.offset : 0;
    uint64_t watch_from = (m.flags & MAP_SHARED) ? m.start : m.start + in_file;
    ctx.session.mapped_file_sizes().watch(fd_link, m.shared_object, stored.size, watch_from, m.end);
  }
  // Every file mapping is tracked, private ones too: a private mapping shows
  // the file's new bytes in the pages it has not copied, and replay maps it
  // from the trace's copy, so a write to the file is recorded as memory
  // written at each mapping of it (fs_syscalls.cc).
  ctx.session.track_shared_mapping(ctx.task, {m.start, m.end, m.offset, st.st_dev, st.st_ino});
  ctx.session.forget_buffered_files(ctx);
  ctx.session.forget_buffered_file_elsewhere(ctx, st.st_dev, st.st_ino);
  ctx.session.site_patcher().patch(ctx.task, fd_link, stored.hash, m, ctx.event.writes);
  ctx.event.mappings.push_back(std::move(m));
}

void exit_mincore(SyscallContext& ctx) {
  if (!ctx.failed()) ctx.record_memory(ctx.arg(2), page_up(ctx.arg(1)) / kPage);
}

// munmap: shared file mappings in the range are gone.
void exit_unmap(SyscallContext& ctx) {
  if (ctx.failed()) return;
  ctx.session.forget_mappings(ctx.task, ctx.arg(0), ctx.arg(1));
  ctx.session.mapped_file_sizes().unmapped(ctx.arg(0), ctx.arg(1));
  ctx.session.buffer_memory_changed(ctx.task, ctx.arg(0), ctx.arg(1), false);
}

// mremap: a shared file mapping that moved or grew is still one, at its new
// place (write(2) to the file changes its memory there).
void exit_mremap(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t old_addr = ctx.arg(0), old_len = ctx.arg(1), new_len = ctx.arg(2);
  uint64_t new_addr = static_cast<uint64_t>(ctx.result());
  std::vector<RecordSession::SharedFileMapping> moved;
  for (const RecordSession::SharedFileMapping& m : ctx.session.shared_mappings(ctx.task)) {
    if (old_addr < m.start || old_addr >= m.end) continue;
    moved.push_back({new_addr, new_addr + page_up(new_len), m.offset + (old_addr - m.start), m.dev, m.ino});
  }
  // old_len 0 makes a second mapping of the same pages; MREMAP_DONTUNMAP
  // leaves the old one in place too.
  bool old_kept = old_len == 0 || (ctx.arg(3) & MREMAP_DONTUNMAP);
  if (!old_kept) ctx.session.forget_mappings(ctx.task, old_addr, old_len);
  ctx.session.forget_mappings(ctx.task, new_addr, page_up(new_len));
  // A buffer that moved, or had its pages moved away, has no view.
  ctx.session.buffer_memory_changed(ctx.task, old_addr, std::max<uint64_t>(old_len, 1), false);
  ctx.session.buffer_memory_changed(ctx.task, new_addr, page_up(new_len), false);
  for (const auto& m : moved) ctx.session.track_shared_mapping(ctx.task, m);
  if (!moved.empty()) ctx.session.forget_buffered_files(ctx);
  // A mapping over an object in replay stays one at its new place.
  ctx.session.mapped_file_sizes().remapped(old_addr, old_len, old_kept, new_addr, new_len);
}

// remap_file_pages: the kernel emulates it with a MAP_FIXED mapping of the
// same file at another offset; replay redoes it on its own shared mapping
// of the file (an object with the same offsets). A write to the file must
// then be recorded at the page's new offset.
void exit_remap_file_pages(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t start = ctx.arg(0), len = page_up(ctx.arg(1)), offset = ctx.arg(3) * kPage;
  std::optional<RecordSession::SharedFileMapping> file;
  for (const RecordSession::SharedFileMapping& m : ctx.session.shared_mappings(ctx.task)) {
    if (start >= m.start && start < m.end) file = m;
  }
  ctx.session.forget_mappings(ctx.task, start, len);
  ctx.session.buffer_memory_changed(ctx.task, start, len, false);
  if (file) {
    ctx.session.track_shared_mapping(ctx.task, {start, start + len, offset, file->dev, file->ino});
    ctx.session.forget_buffered_files(ctx);
  }
}

// Private anonymous memory reads as zeros after these; the shared view of
// a syscall buffer (buffer_view.h) would keep its bytes.
void exit_madvise(SyscallContext& ctx) {
  if (ctx.failed()) return;
  uint64_t advice = ctx.arg(2);
  if (advice == MADV_WIPEONFORK || advice == MADV_DONTFORK) {
    // Its forks' children get zeros there, or nothing (record_processes.cc).
    RecordTask* t = ctx.session.record_task(ctx.task.tid());
    if (t && t->process) t->process->fork_sensitive = true;
  }
  if (advice == MADV_DONTNEED || advice == MADV_REMOVE || advice == MADV_DONTNEED_LOCKED) {
    ctx.session.buffer_memory_changed(ctx.task, ctx.arg(0), page_up(ctx.arg(1)), true);
  }
}

// Protection keys (CPUs with PKU): replay redoes pkey_alloc, pkey_free and
// pkey_mprotect in the replayed process (engine/replay/address_space.cc),
// so that its keys, the PKRU rights pkey_alloc gives the calling thread and
// the pages' keys are the recording's; a key replay is not given the same
// number is a divergence. pkey_mprotect with key -1 is mprotect.
void enter_pkey_mprotect(SyscallContext& ctx) { enter_range_change(ctx); }

}  // namespace

// Replay redoes these calls (engine/replay/address_space.cc); their results
// travel in the registers.
namespace recorders {
extern const SyscallRecorder mmap{enter_mmap, exit_mmap};
extern const SyscallRecorder munmap{enter_range_change, exit_unmap};
extern const SyscallRecorder mremap{enter_range_change, exit_mremap};
extern const SyscallRecorder mprotect{enter_range_change, nullptr};
extern const SyscallRecorder pkey_mprotect{enter_pkey_mprotect, nullptr};
extern const SyscallRecorder remap_file_pages{enter_range_change, exit_remap_file_pages};
extern const SyscallRecorder madvise{enter_madvise, exit_madvise};
extern const SyscallRecorder mincore{nullptr, exit_mincore};
extern const SyscallRecorder brk{};
}  // namespace recorders

}  // namespace backstep
