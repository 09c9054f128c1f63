#include "engine/replay/address_space.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include "engine/core/cpuid_trap.h"
#include "engine/core/proc_maps.h"
#include "engine/core/syscalls/syscall_table.h"
#include "engine/core/tool_page.h"
#include "engine/trace/printable.h"
#include "engine/trace/trace_error.h"

namespace backstep {
namespace {

constexpr uint64_t kArchReqXcompPerm = 0x1023;  // <asm/prctl.h> ARCH_REQ_XCOMP_PERM

constexpr uint32_t kMapTypeBits = MAP_SHARED | MAP_PRIVATE | MAP_SHARED_VALIDATE;

// The trace's copy of the file of `m`, opened in the tracee (checked
// against what was recorded first). Any failure names it: a recorded mmap
// of a file succeeded, so failing now is the trace's problem, not the
// program's.
[[noreturn]] void file_failed(const trace::Mapping& m, const trace::TraceReader& reader, const char* what,
                              int64_t err) {
  std::ostringstream os;
  os << reader.dir() << ": trace file " << trace::printable(m.file) << ": cannot " << what << " it at 0x" << std::hex
     << m.start << "-0x" << m.end << std::dec << " (offset " << m.offset
     << "): " << std::system_category().message(static_cast<int>(-err));
  throw trace::TraceError(os.str());
}

int64_t open_copy(Task& task, const trace::Mapping& m, const trace::TraceReader& reader) {
  std::string path = reader.verified_file_path(m);
  if (path.size() + 1 > kToolScratchSize) throw std::runtime_error("trace path too long: " + path);
  task.write_bytes(kToolScratch, path.c_str(), path.size() + 1);
  int64_t fd = tool_syscall(task, SYS_openat, static_cast<uint64_t>(AT_FDCWD), kToolScratch.as_int(),
                            O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) file_failed(m, reader, "open", fd);
  return fd;
}

// A private mapping of the copy open at `fd` in the tracee (shared ones go
// through SharedObjects).
int64_t map_copy(Task& task, const trace::Mapping& m, const trace::TraceReader& reader, int64_t fd) {
  uint32_t flags = (m.flags & ~kMapTypeBits & ~MAP_FIXED_NOREPLACE) | MAP_PRIVATE | MAP_FIXED;
  int64_t r = tool_syscall(task, SYS_mmap, m.start, m.end - m.start, m.prot, flags,
                           static_cast<uint64_t>(fd), m.offset);
  if (r < 0 && r > -4096) file_failed(m, reader, "map", r);
  return r;
}

bool is_private_file(const trace::Mapping& m) {
  bool is_shared = (m.flags & kMapTypeBits) != MAP_PRIVATE && (m.flags & MAP_SHARED);
  return m.kind == trace::MappingKind::File && m.shared_object == 0 && !is_shared;
}

// A private file mapping through `open`, the copy the process holds open:
// opened first where it holds another file's or none.
int64_t map_through(Task& task, const trace::Mapping& m, const trace::TraceReader& reader, OpenCopy& open) {
  if (open.fd >= 0 && open.file != m.file) close_copy(task, open);
  if (open.fd < 0) {
    open.fd = open_copy(task, m, reader);
    open.file = m.file;
  }
  return map_copy(task, m, reader, open.fd);
}

// Advice that changes what the program sees: pages that read as zeros (or
// the file) again, guard pages that fault. The rest (WILLNEED, COLD,
// HUGEPAGE, ...) only tunes the kernel; DONTFORK and WIPEONFORK must not be
// redone, since checkpoints are forks of the replayed process.
bool changes_memory(uint64_t advice) {
  constexpr uint64_t kDontneedLocked = 24, kGuardInstall = 102, kGuardRemove = 103;
  return advice == MADV_DONTNEED || advice == MADV_REMOVE || advice == kDontneedLocked ||
         advice == kGuardInstall || advice == kGuardRemove;
}

// The program raised RLIMIT_STACK: when recorded, its stack could then grow
// on demand that far down (and no closer than the kernel's guard gap to the
// mapping below). Replay's stack is plain memory reserved below the
// recorded one (rebuild_address_space), so it reserves the new room too.
constexpr uint64_t kStackGuardGap = 256 * 4096;
constexpr uint64_t kMaxStackRoom = uint64_t{1} << 30;

void reserve_stack_room(Task& task, uint64_t sp, uint64_t limit) {
  std::vector<MapsEntry> maps = read_proc_maps(task.tid());
  auto stack = std::find_if(maps.begin(), maps.end(), [&](const MapsEntry& m) { return sp >= m.start && sp < m.end; });
  if (stack == maps.end()) return;
  uint64_t below = 0;
  for (const MapsEntry& m : maps) {
    if (m.end <= stack->start) below = std::max(below, m.end);
  }
  uint64_t room = std::min(limit, kMaxStackRoom);
  uint64_t low = stack->end > room ? stack->end - room : 0;
  low = std::max(low, below + kStackGuardGap) & ~uint64_t{4095};
  if (low >= stack->start) return;
  // A failure leaves the reserve as it was: a fault there would then show
  // as a divergence at the next event.
  tool_syscall(task, SYS_mmap, low, stack->start - low, stack->prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
               static_cast<uint64_t>(-1), 0);
}

// setrlimit(RLIMIT_STACK, ...) or prlimit64 of the program itself with a
// new RLIMIT_STACK: the new soft limit, read from the program's memory.
std::optional<uint64_t> new_stack_limit(ReplayMmCall& call) {
  const Registers& e = call.entry;
  uint64_t resource = 0, new_limit = 0;
  if (e.syscallno() == SYS_setrlimit) {
    resource = e.arg(0);
    new_limit = e.arg(1);
  } else {
    if (e.arg(0) != 0 && e.arg(0) != call.event.tid) return std::nullopt;
    resource = e.arg(1);
    new_limit = e.arg(2);
  }
  if (resource != RLIMIT_STACK || new_limit == 0) return std::nullopt;
  struct rlimit rl {};
  if (call.task.read_some(remote_ptr<void>(new_limit), &rl, sizeof(rl)) != sizeof(rl)) return std::nullopt;
  return rl.rlim_cur;
}

}  // namespace

int64_t map_recorded(Task& task, const trace::Mapping& m, const trace::TraceReader& reader,
                     SharedObjects& shared, OpenCopy& open) {
  int64_t r;
  bool is_shared = (m.flags & kMapTypeBits) != MAP_PRIVATE && (m.flags & MAP_SHARED);
  if (is_private_file(m)) {
    r = map_through(task, m, reader, open);
  } else if (m.kind == trace::MappingKind::File || (is_shared && m.kind == trace::MappingKind::Anonymous)) {
    r = shared.map(task, m, reader);  // a file the recorder gave a shared object, or shared memory
  } else {
    uint32_t flags = (m.flags & ~MAP_FIXED_NOREPLACE) | MAP_ANONYMOUS | MAP_FIXED;
    if (!(flags & kMapTypeBits)) flags |= MAP_PRIVATE;
    r = tool_syscall(task, SYS_mmap, m.start, m.end - m.start, m.prot, flags,
                     static_cast<uint64_t>(-1), 0);
  }
  if (r < 0) return r;
  return r == static_cast<int64_t>(m.start) ? 0 : -EFAULT;
}

void close_copy(Task& task, OpenCopy& open) {
  if (open.fd >= 0) tool_syscall(task, SYS_close, static_cast<uint64_t>(open.fd));
  open.fd = -1;
}

std::vector<uint64_t> recorded_stub_areas(const trace::Event& exec) {
  std::vector<uint64_t> areas;
  for (const trace::Mapping& m : exec.mappings) {
    if (m.kind == trace::MappingKind::Tool && m.start != kToolPageAddr) areas.push_back(m.start);
  }
  return areas;
}

void rebuild_address_space(Task& task, const trace::Event& exec, const trace::TraceReader& reader,
                           SharedObjects& shared) {
  // Everything but the tool page (and the vsyscall page, which no call
  // unmaps) goes, in one call on each side of the page: munmap passes over
  // the holes, and each remote call is two stops.
  uint64_t tool_end = kToolPageAddr + kToolPageSize, low = UINT64_MAX, below = 0, above = 0, high = 0;
  for (const MapsEntry& m : read_proc_maps(task.tid())) {
    bool tool = m.start >= kToolPageAddr && m.start < kToolPageAddr + kToolPageSize;
    if (tool) tool_end = std::max(tool_end, m.end);
    if (tool || m.name == "[vsyscall]") continue;
    if (m.end <= kToolPageAddr) {
      low = std::min(low, m.start);
      below = std::max(below, m.end);
    } else {
      above = above ? std::min(above, m.start) : m.start;
      high = std::max(high, m.end);
    }
  }
  if (below && tool_syscall(task, SYS_munmap, low, below - low) != 0) {
    throw std::runtime_error("cannot unmap the replay stub's mappings below the tool page");
  }
  if (high && tool_syscall(task, SYS_munmap, std::max(above, tool_end), high - std::max(above, tool_end)) != 0) {
    throw std::runtime_error("cannot unmap the replay stub's mappings above the tool page");
  }
  uint64_t below_stack = 0;
  for (const trace::Mapping& m : exec.mappings) {
    if (m.kind != trace::MappingKind::Stack) below_stack = std::max(below_stack, m.end);
  }
  // Consecutive private mappings of one file (a library's segments) share
  // one open of its copy: each remote call is two stops.
  OpenCopy open;
  for (trace::Mapping m : exec.mappings) {
    // The tool page is the replay's own already; the executable's stub
    // area (the recorder's other Tool mapping) is mapped again, empty: the
    // stubs come with the events that wrote them.
    if (m.kind == trace::MappingKind::Tool && m.start == kToolPageAddr) continue;
    // The stack's room is the recording's: its Stack mapping starts where
    // RLIMIT_STACK let it grow to (record/exec_snapshot.cc), so a program
    // that overflows faults at the same depth (never more than 8 MiB of
    // replay's own, nor less under a raised limit).
    if (m.kind == trace::MappingKind::Stack) m.start = std::max(m.start, below_stack);
    if (int64_t r = map_recorded(task, m, reader, shared, open); r != 0) {
      std::ostringstream os;
      os << "cannot recreate the recorded mapping " << std::hex << m.start << "-" << m.end
         << std::dec << " (" << trace::printable(m.name) << "): error " << -r;
      throw std::runtime_error(os.str());
    }
  }
  close_copy(task, open);
  for (const trace::MemoryWrite& w : exec.writes) {
    task.write_bytes(remote_ptr<void>(w.addr), w.data.data(), w.data.size());
  }
  // As the recorder did after the exec (record/exec_snapshot.cc): the
  // recorded cpuid answers are applied where the instruction traps.
  if (reader.header().cpuid_faulting && !enable_cpuid_faulting(task)) {
    throw std::runtime_error("this trace was recorded with --cpuid-faulting, and this CPU or kernel cannot "
                             "make cpuid trap; replay refused");
  }
  Registers regs = Registers::from_block(*exec.regs);
  task.set_regs(regs);
  if (!exec.xstate.empty()) task.set_xstate(exec.xstate);
}

std::string replay_address_space_call(ReplayMmCall& call) {
  Task& task = call.task;
  const Registers& e = call.entry;
  // Size notes first: the event's memory writes may land in the new part.
  for (const trace::Mapping& note : call.event.mappings) {
    if (note.kind != trace::MappingKind::FileSize) continue;
    std::string problem = call.shared.resize(task, note.shared_object, note.file_size);
    if (!problem.empty()) return problem;
  }
  if (call.result < 0 && call.result > -4096) return "";  // failed calls changed nothing
  auto expect = [&](int64_t got, int64_t want, const char* what) -> std::string {
    if (got == want) return "";
    std::ostringstream os;
    os << what << " returned " << got << " during replay, recorded " << want;
    return os.str();
  };
  // The spec says which calls these are (`replay=`); without a default, a
  // ReplayAction with no case here fails the build (-Werror=switch).
  const sys::SyscallInfo* info = sys::lookup(static_cast<long>(e.syscallno()));
  switch (info ? info->replay : sys::ReplayAction::None) {
    case sys::ReplayAction::None:
      return "";
    case sys::ReplayAction::Mmap:
      if (call.event.mappings.empty()) return "recorded mmap has no mapping";
      return expect(map_recorded(task, call.event.mappings[0], call.reader, call.shared, call.open_copy), 0, "mmap");
    case sys::ReplayAction::Munmap:
      return expect(tool_syscall(task, SYS_munmap, e.arg(0), e.arg(1)), 0, "munmap");
    case sys::ReplayAction::MapObject:
      // shmat's segment, as a shared object (engine/record/shm_syscalls.cc);
      // io_setup's AIO ring, as shared memory (engine/record/aio_syscalls.cc).
      if (call.event.mappings.empty()) return "recorded call has no mapping";
      return expect(map_recorded(task, call.event.mappings[0], call.reader, call.shared, call.open_copy), 0,
                    "shmat/io_setup");
    case sys::ReplayAction::UnmapObject: {
      // shmdt, io_destroy: the recorder noted the extent of the attachment,
      // or of the ring.
      if (call.event.mappings.empty()) return "recorded call has no mapping";
      const trace::Mapping& m = call.event.mappings[0];
      return expect(tool_syscall(task, SYS_munmap, m.start, m.end - m.start), 0, "shmdt/io_destroy");
    }
    case sys::ReplayAction::StackRoom:  // setrlimit, prlimit64
      if (std::optional<uint64_t> limit = new_stack_limit(call)) reserve_stack_room(task, e.sp(), *limit);
      return "";
    case sys::ReplayAction::RemapFilePages:  // on replay's shared mapping of the same file
      return expect(tool_syscall(task, SYS_remap_file_pages, e.arg(0), e.arg(1), e.arg(2), e.arg(3), e.arg(4)), 0,
                    "remap_file_pages");
    case sys::ReplayAction::Mprotect:
      return expect(tool_syscall(task, SYS_mprotect, e.arg(0), e.arg(1), e.arg(2)), 0, "mprotect");
    // Protection keys, redone in the replayed process: the same key numbers
    // (the recorded result), the PKRU rights pkey_alloc gives the thread.
    case sys::ReplayAction::PkeyMprotect:
      return expect(tool_syscall(task, SYS_pkey_mprotect, e.arg(0), e.arg(1), e.arg(2), e.arg(3)), 0,
                    "pkey_mprotect");
    case sys::ReplayAction::PkeyAlloc:
      return expect(tool_syscall(task, SYS_pkey_alloc, e.arg(0), e.arg(1)), call.result, "pkey_alloc");
    case sys::ReplayAction::PkeyFree:
      return expect(tool_syscall(task, SYS_pkey_free, e.arg(0)), 0, "pkey_free");
    // A descriptor written into the LDT (functions 1 and 0x11), from the
    // user_desc in the replayed memory, which is the recording's.
    case sys::ReplayAction::ModifyLdt:
      if (e.arg(0) != 1 && e.arg(0) != 0x11) return "";
      return expect(tool_syscall(task, SYS_modify_ldt, e.arg(0), e.arg(1), e.arg(2)), 0, "modify_ldt");
    // A permission to use an extended state component (AMX tiles): the
    // replayed code uses it as the recorded code did.
    case sys::ReplayAction::ArchPrctl:
      if (e.arg(0) != kArchReqXcompPerm) return "";
      return expect(tool_syscall(task, SYS_arch_prctl, e.arg(0), e.arg(1)), 0, "arch_prctl(ARCH_REQ_XCOMP_PERM)");
    case sys::ReplayAction::Madvise: {
      uint64_t advice = e.arg(2);
      if (advice == MADV_FREE) advice = MADV_DONTNEED;  // as the recorder made it
      if (!changes_memory(advice)) return "";
      return expect(tool_syscall(task, SYS_madvise, e.arg(0), e.arg(1), advice), 0, "madvise");
    }
    case sys::ReplayAction::Mremap: {
      uint64_t to = static_cast<uint64_t>(call.result);
      uint64_t flags = e.arg(3) & MREMAP_DONTUNMAP;
      int64_t r = to == e.arg(0)
                      ? tool_syscall(task, SYS_mremap, e.arg(0), e.arg(1), e.arg(2), 0)
                      : tool_syscall(task, SYS_mremap, e.arg(0), e.arg(1), e.arg(2),
                                     flags | MREMAP_MAYMOVE | MREMAP_FIXED, to);
      return expect(r, static_cast<int64_t>(to), "mremap");
    }
    case sys::ReplayAction::Brk: {
      // The heap is plain anonymous memory in replay: grow and shrink it
      // page by page to follow the recorded break.
      auto page_up = [](uint64_t v) { return (v + 4095) & ~uint64_t{4095}; };
      uint64_t old_top = page_up(call.brk), new_top = page_up(static_cast<uint64_t>(call.result));
      call.brk = static_cast<uint64_t>(call.result);
      if (new_top > old_top) {
        return expect(tool_syscall(task, SYS_mmap, old_top, new_top - old_top, PROT_READ | PROT_WRITE,
                                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, static_cast<uint64_t>(-1), 0),
                      static_cast<int64_t>(old_top), "brk");
      }
      if (new_top < old_top) {
        return expect(tool_syscall(task, SYS_munmap, new_top, old_top - new_top), 0, "brk");
      }
      return "";
    }
  }
  return "";
}

}  // namespace backstep
