// The recorder's side of in-process syscall buffering (preload/, the ABI in
// preload/preload_interface.h; docs/syscall-buffering.md).
//
// - A thread's library registers its buffer with a call the kernel does not
//   know (BS_CALL_REGISTER_BUFFER); the recorder accepts it (result 0,
//   mode RECORD in the header) and remembers it per thread.
// - At every stop of a thread, the calls it buffered since its previous
//   event become a BufferFlush event, ahead of whatever the stop records,
//   and the buffer is emptied. Replay writes the records back at that point.
// - At the exit of a traced call that the library could have buffered, the
//   recorder patches its `syscall` instruction into a jump to a stub in the
//   library, so that the next call there goes through the library; and if
//   the call was gated on a descriptor that cannot block and whose writes
//   need nothing of the recorder (a regular file no process maps shared, a
//   directory, /dev/null and the like), it allows buffering on it.
// Every byte the recorder writes into the program for this (stubs, the
// patched site, descriptor bits) is recorded as memory the event wrote,
// so that replay builds the same code and the library takes the same paths.
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <optional>
#include <set>
#include <utility>

#include "values/log.h"
#include "engine/core/proc_maps.h"
#include "engine/core/syscalls/syscall_table.h"
#include "engine/core/syscall_stub.h"
#include "engine/core/tool_page.h"
#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {
namespace {

constexpr uint64_t kUsedOffset = offsetof(bs_buffer_header, used);
constexpr uint64_t kModeOffset = offsetof(bs_buffer_header, mode);
constexpr uint64_t kBusyOffset = offsetof(bs_buffer_header, busy);
constexpr uint64_t kDataOffset = sizeof(bs_buffer_header);
constexpr uint64_t kDataCapacity = BS_BUFFER_SIZE - BS_HOOK_STACK_SIZE - sizeof(bs_buffer_header);

// A 32-bit word of the header of the buffer at `buffer`: from the
// recorder's view of it where there is one, else through /proc/PID/mem
// (nullopt where that cannot be read).
std::optional<uint32_t> read_header_word(Task& task, uint64_t buffer, const BufferView* view, uint64_t offset) {
  uint32_t word = 0;
  if (view) std::memcpy(&word, view->bytes() + offset, sizeof(word));
  else if (task.read_some(remote_ptr<void>(buffer + offset), &word, sizeof(word)) != sizeof(word)) return std::nullopt;
  return word;
}

void write_header_word(Task& task, uint64_t buffer, BufferView* view, uint64_t offset, uint32_t word) {
  if (view) std::memcpy(view->bytes() + offset, &word, sizeof(word));
  else task.write_bytes(remote_ptr<void>(buffer + offset), &word, sizeof(word));
}

// Whether `used` bytes of records hold a successful buffered close. A
// malformed record ends the walk: the flush refuses it.
bool holds_a_close(const uint8_t* records, uint32_t used) {
  for (uint64_t at = 0; used - at >= sizeof(bs_record);) {
    bs_record r;
    std::memcpy(&r, records + at, sizeof(r));
    if (r.size < sizeof(r) || r.size % 8 != 0 || r.size > used - at) return false;
    if (const sys::SyscallInfo* info = sys::lookup(r.nr); info && info->buffer_closes && r.ret == 0) return true;
    at += r.size;
  }
  return false;
}

}  // namespace

void RecordSession::register_buffer(RecordTask& t, SyscallContext& ctx) {
  // -ENOSYS stays: the library never buffers.
  if (!buffering() || !t.process || t.process->own_filter) return;
  Task& task = t.task;
  uint64_t buffer = ctx.arg(0);
  if (ctx.arg(1) != BS_BUFFER_SIZE || ctx.arg(3) != BS_STUB_AREA_SIZE || ctx.arg(5) != BS_PRELOAD_VERSION) {
    BS_LOG(Record, "thread " << t.tid() << ": refused a syscall buffer of another library version");
    return;
  }
  uint32_t version = 0;
  if (task.read_some(remote_ptr<void>(buffer), &version, sizeof(version)) != sizeof(version) ||
      version != BS_PRELOAD_VERSION) {
    return;
  }
  uint32_t mode = BS_MODE_RECORD;
  task.write_bytes(remote_ptr<void>(buffer + kModeOffset), &mode, sizeof(mode));
  // Where the library's desched event sends its signal: this thread, whose
  // waits the wake signal interrupts (desched.c; check_blocked_call). Not
  // recorded: replay never arms one, and the header is outside the digests.
  uint32_t desched[2] = {static_cast<uint32_t>(gettid()), static_cast<uint32_t>(RecorderSignals::kWakeSignal)};
  static_assert(offsetof(bs_buffer_header, desched_signal) == offsetof(bs_buffer_header, recorder_tid) + 4);
  task.write_bytes(remote_ptr<void>(buffer + offsetof(bs_buffer_header, recorder_tid)), desched, sizeof(desched));
  t.buffer = buffer;
  publish_tsc_rules(t);
  publish_gate_rules(t);
  if (const EmulatedTracee* traced = ptrace_.tracee(t.tid()); traced && traced->syscall_stops) {
    set_traced_calls(t, true);  // its tracer sees every call (record_tracees.cc)
  }
  RecordProcess& p = *t.process;
  // After the result is set: the view's system calls restore the registers.
  ctx.exit.raw().rax = 0;
  task.set_regs(ctx.exit);
  std::vector<siginfo_t> held;
  if (std::unique_ptr<BufferView> view = BufferView::share(task, buffer, BS_BUFFER_SIZE, nullptr, held)) {
    p.buffer_views[buffer] = std::move(view);
  }
  for (const siginfo_t& s : held) t.deferred_signals.push_back(s);
  if (!p.trampoline) {
    p.stub_area = ctx.arg(2);
    p.stub_area_size = ctx.arg(3);
    p.trampoline = ctx.arg(4);
    for (const MapsEntry& m : read_proc_maps(task.tid())) {
      if (p.trampoline >= m.start && p.trampoline < m.end) {
        p.library_code = m.start;
        p.library_code_end = m.end;
        break;
      }
    }
  }
}

BufferView* RecordSession::buffer_view(RecordTask& t) {
  if (!t.buffer || !t.process) return nullptr;
  auto it = t.process->buffer_views.find(t.buffer);
  return it == t.process->buffer_views.end() ? nullptr : it->second.get();
}

void RecordSession::unshare_buffers(RecordTask& t, RecordProcess& parent) {
  std::vector<siginfo_t> held;
  for (const auto& [addr, view] : parent.buffer_views) {
    std::unique_ptr<BufferView> own = BufferView::share(t.task, addr, view->size(), view->bytes(), held);
    if (own) {
      t.process->buffer_views[addr] = std::move(own);
    } else if (!make_buffer_private(t.task, addr, view->size(), view->bytes(), held)) {
      throw RecordingRefused("process " + std::to_string(t.tid()) +
                             " cannot be given its own copy of its parent's syscall buffer at event " +
                             std::to_string(next_event()));
    }
  }
  for (const siginfo_t& s : held) t.deferred_signals.push_back(s);
  // Its copy is its own now, and so are the descriptors it opens.
  if (t.buffer) publish_gate_rules(t);
}

void RecordSession::buffer_memory_changed(Task& task, uint64_t start, uint64_t len, bool zeroed) {
  RecordTask* t = record_task(task.tid());
  if (!t || !t->process) return;
  auto& views = t->process->buffer_views;
  for (auto it = views.begin(); it != views.end();) {
    BufferView& v = *it->second;
    if (!v.overlaps(start, len)) {
      ++it;
    } else if (zeroed) {
      uint64_t from = std::max(start, v.addr()), to = std::min(start + len, v.addr() + v.size());
      std::memset(v.bytes() + (from - v.addr()), 0, to - from);
      ++it;
    } else {
      BS_LOG(Record, "the program mapped over the syscall buffer at 0x" << std::hex << v.addr());
      it = views.erase(it);
    }
  }
}

void RecordSession::flush_buffer(RecordTask& t) {
  if (!t.buffer) return;
  Task& task = t.task;
  BufferView* view = buffer_view(t);
  std::optional<uint32_t> used_word = read_header_word(task, t.buffer, view, kUsedOffset);
  if (!used_word) {
    t.buffer = 0;  // unmapped (or the thread is gone): nothing to flush
    return;
  }
  uint32_t used = *used_word;
  if (used == 0) return;
  if (used > kDataCapacity || used % 8 != 0) {
    throw RecordingRefused("thread " + std::to_string(t.tid()) + "'s syscall buffer is corrupt (" +
                           std::to_string(used) + " bytes used) at event " + std::to_string(next_event()));
  }
  trace::Event flush;
  flush.kind = trace::EventKind::BufferFlush;
  flush.tid = static_cast<uint32_t>(t.tid());
  // With a view, the records go from it straight into the trace.
  std::vector<uint8_t> copied;
  if (!view) copied = task.read_bytes(remote_ptr<void>(t.buffer + kDataOffset), used);
  const uint8_t* records = view ? view->bytes() + kDataOffset : copied.data();
  const trace::BorrowedWrite borrowed{t.buffer + kDataOffset, std::span<const uint8_t>(records, used)};
  // The records must tile the bytes used: the library in replay walks them.
  std::vector<int> closed;
  for (uint64_t at = 0; at < used;) {
    bs_record r;
    if (used - at < sizeof(r)) at = used + 1;
    else std::memcpy(&r, records + at, sizeof(r));
    if (at > used || r.size < sizeof(r) || r.size % 8 != 0 || r.size > used - at) {
      throw RecordingRefused("thread " + std::to_string(t.tid()) + "'s syscall buffer holds a malformed record at event " +
                             std::to_string(next_event()));
    }
    if (const sys::SyscallInfo* info = sys::lookup(r.nr); info && info->buffer_closes && r.ret == 0) {
      closed.push_back(static_cast<int>(r.check));  // the descriptor it closed
    }
    at += r.size;
  }
  uint32_t counts[2] = {used, 0};  // used, cursor
  std::vector<uint8_t> header(sizeof(counts));
  std::memcpy(header.data(), counts, sizeof(counts));
  flush.writes.push_back({t.buffer + kUsedOffset, std::move(header)});
  if (!closed.empty()) forget_closed(t, closed, flush);
  write_event(flush, std::span<const trace::BorrowedWrite>(&borrowed, 1));
  write_header_word(task, t.buffer, view, kUsedOffset, 0);
}

void RecordSession::forget_buffered_closes(RecordTask& t) {
  if (!t.buffer) return;
  BufferView* view = buffer_view(t);
  std::optional<uint32_t> used = read_header_word(t.task, t.buffer, view, kUsedOffset);
  if (!used || *used == 0 || *used > kDataCapacity) return;
  std::vector<uint8_t> copied;
  if (!view) copied = t.task.read_bytes(remote_ptr<void>(t.buffer + kDataOffset), *used);
  if (!holds_a_close(view ? view->bytes() + kDataOffset : copied.data(), *used)) return;
  descriptors_.table_changing(t.tid());
  descriptors_.table_changed(t.tid());
}

bool RecordSession::in_buffered_call(RecordTask& t) {
  if (!t.buffer) return false;
  if (read_header_word(t.task, t.buffer, buffer_view(t), kBusyOffset).value_or(0)) return true;
  const RecordProcess* p = t.process;
  uint64_t ip = t.task.regs().ip();
  // Not only while `busy` is set: on the way into the hook and out of it
  // (the trampoline, finding the thread's buffer), the library runs other
  // code in replay too, and a thread that reads the counter in a tight
  // loop spends most of its time there.
  return p && (p->in_stub_area(ip) || p->in_library_code(ip));
}

void RecordSession::request_yield(RecordTask& t) {
  if (!t.buffer) return;
  uint32_t yes = 1;
  try {
    t.task.write_bytes(remote_ptr<void>(t.buffer + offsetof(bs_buffer_header, yield)), &yes, sizeof(yes));
  } catch (const std::exception&) {
    // Its memory is going (an execve under way, an exit): no call to yield.
  }
}

void RecordSession::after_traced_call(RecordTask& t, SyscallContext& ctx) {
  if (!buffering() || !t.process) return;
  // Mappings may have changed: what can be patched is read again.
  if (ctx.info.family == sys::Family::Mm) t.process->patchable_code_known = false;
  if (!ctx.info.bufferable) return;
  if (t.buffer && ctx.info.buffer_fd_arg >= 0 && !ctx.failed()) {
    allow_descriptor(t, ctx, static_cast<int>(ctx.arg(ctx.info.buffer_fd_arg)));
  }
  if (t.process->trampoline) patch_site(t, ctx);
}

bool RecordSession::site_idle(RecordTask& t, const syscall_stub::Plan& plan) {
  // Another thread that would come back in the middle of the jump: one
  // blocked in the kernel in a call made there, or one inside the patch
  // whose stop the recorder has not handled yet (the running thread, when
  // another thread's finished call is recorded at its stop): patch another
  // time. One that stands inside it at an instruction and waits for its
  // turn is moved into the stub (move_out_of_site; replay moves the
  // threads it holds there: ReplaySession::patched_sites).
  uint64_t site = plan.info.site;
  auto inside = [&](uint64_t ip) { return ip > site && ip < site + plan.info.site_length; };
  for (auto& [tid, other] : record_tasks_) {
    if (other.get() == &t || other->process != t.process || other->run == RunState::Gone) continue;
    if (other->in_syscall) {
      if (inside(other->in_syscall->entry.ip())) return false;
      continue;
    }
    uint64_t ip = 0;
    try {
      ip = other->task.regs().ip();
    } catch (const std::exception&) {
      return false;
    }
    if (inside(ip) && (!movable(*other) || !syscall_stub::traced_equivalent(plan.info, 0, ip))) return false;
  }
  return true;
}

bool RecordSession::movable(RecordTask& other) {
  return other.run == RunState::Stopped && &other != current_ && !other.in_syscall && !other.task.has_kept_status();
}

void RecordSession::move_out_of_site(RecordTask& t, const bs_stub_info& info, uint64_t stub) {
  // A thread of the process stopped inside the patch at one of the
  // displaced instructions (its call returned, its turn has not come)
  // would resume in the middle of the jump: it resumes at the same point
  // of the stub instead, which runs the rest of them and returns after the
  // site.
  for (auto& [tid, other] : record_tasks_) {
    if (other.get() == &t || other->process != t.process || !movable(*other)) continue;
    try {
      Registers regs = other->task.regs();
      std::optional<uint64_t> resume_at = syscall_stub::traced_equivalent(info, stub, regs.ip());
      if (!resume_at) continue;
      if (other->last_exit_regs.ip() == regs.ip()) other->last_exit_regs.set_ip(*resume_at);
      regs.set_ip(*resume_at);
      other->task.set_regs(regs);
    } catch (const std::exception&) {
      // A thread that cannot be read is not running: it never resumes there.
    }
  }
}

void RecordSession::patch_site(RecordTask& t, SyscallContext& ctx) {
  Task& task = t.task;
  RecordProcess& p = *t.process;
  uint64_t site = ctx.entry.ip() - 2;
  if (p.in_stub_area(site)) return;
  // A thread a recorded tracer traces: its tracer would see the patch, and
  // a thread it steps moved into a stub (ptrace_emulation.h).
  if (ptrace_.tracee(t.tid())) return;
  if (site >= kToolPageAddr && site < kToolPageAddr + kToolPageSize) return;
  uint8_t code[syscall_stub::kSiteReadLength];
  std::size_t got = task.read_some(remote_ptr<void>(site), code, sizeof(code));
  std::optional<syscall_stub::Plan> plan = syscall_stub::plan(site, code, got);
  if (!plan) return;
  std::vector<std::pair<uint64_t, std::size_t>> written;
  std::optional<uint64_t> stub = install_stub(t, *plan, syscall_stub::StubEntry::Syscall, written);
  if (!stub) return;
  for (const auto& [addr, len] : written) ctx.record_memory(addr, len);
  // The thread stands after the old `syscall`, now inside the jump: it goes
  // on from the same point of the stub's traced path, which runs the
  // displaced instructions and returns after the site (a restarted call
  // backs up onto the stub's own `syscall`).
  ctx.exit.set_ip(syscall_stub::layout(*stub).after_traced_syscall);
  task.set_regs(ctx.exit);
  BS_LOG(Record, "patched the syscall at 0x" << std::hex << site << " (stub 0x" << *stub << ", "
                                             << std::dec << int(plan->info.count) << " instructions displaced)");
}

}  // namespace backstep
