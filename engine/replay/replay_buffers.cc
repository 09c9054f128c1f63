// Replay's side of in-process syscall buffering (preload/, the ABI in
// preload/preload_interface.h; docs/syscall-buffering.md). Replay performs
// no system call, buffered or not: a BufferFlush event writes the records
// back into the thread's buffer (apply_event), and the library in the
// thread returns their results as it reaches them. Here: the buffer's
// registration, which puts the library into replay mode, and the report
// when the library finds the program making other calls than recorded.
#include <sys/mman.h>

#include <cstddef>
#include <string>

#include <algorithm>
#include <set>

#include "engine/core/proc_maps.h"
#include "engine/core/syscall_stub.h"
#include "engine/core/syscalls/syscall_table.h"
#include "engine/replay/replay_session.h"
#include "preload/preload_interface.h"

namespace backstep {

void ReplaySession::registered_buffer(const Registers& call, int64_t result) {
  if (result != 0) return;  // refused when recorded: the library never buffered
  uint32_t mode = BS_MODE_REPLAY;
  task_->write_bytes(remote_ptr<void>(call.arg(0) + offsetof(bs_buffer_header, mode)), &mode, sizeof(mode));
  threads_[current_tid_].buffer = call.arg(0);
  std::vector<uint64_t>& areas = stub_areas_[threads_[current_tid_].space];
  if (std::find(areas.begin(), areas.end(), call.arg(2)) == areas.end()) areas.push_back(call.arg(2));
}

void ReplaySession::patched_sites(const trace::Event& event) {
  if (threads_.size() < 2) return;
  auto read = [&](uint64_t addr, void* buf, std::size_t len) {
    return task_->read_some(remote_ptr<void>(addr), buf, len);
  };
  for (const trace::MemoryWrite& w : event.writes) {
    std::optional<uint64_t> stub = syscall_stub::patched_site_stub(w.addr, w.data, read);
    if (!stub) continue;
    std::optional<bs_stub_info> info = syscall_stub::stub_info(*stub, read);
    if (!info) continue;
    uint32_t space = threads_[current_tid_].space;
    for (auto& [tid, thread] : threads_) {
      if (tid == current_tid_ || thread.space != space || thread.at_entry) continue;
      Registers regs = thread.task->regs();
      std::optional<uint64_t> resume_at = syscall_stub::traced_equivalent(*info, *stub, regs.ip());
      if (!resume_at) continue;
      regs.set_ip(*resume_at);
      thread.task->set_regs(regs);
    }
  }
}

std::set<uint64_t> ReplaySession::buffered_call_returns() {
  std::set<uint64_t> out;
  auto areas = stub_areas_.find(threads_[current_tid_].space);
  if (areas == stub_areas_.end()) return out;
  auto read = [&](uint64_t addr, void* buf, std::size_t len) {
    return task_->read_some(remote_ptr<void>(addr), buf, len);
  };
  for (uint64_t area : areas->second) {
    uint64_t slots = 0;
    if (read(area, &slots, sizeof(slots)) != sizeof(slots)) continue;
    slots = std::min<uint64_t>(slots, BS_STUB_AREA_SIZE / BS_STUB_SIZE);
    // Slot 0 is the count; the executable's area has its veneers in slot 1.
    for (uint64_t i = 1; i < slots; ++i) {
      uint64_t stub = area + i * BS_STUB_SIZE;
      if (syscall_stub::stub_info(stub, read)) out.insert(syscall_stub::layout(stub).handled + syscall_stub::kLeaUpLength);
    }
  }
  return out;
}

std::string ReplaySession::buffered_call_divergence() {
  uint64_t buffer = threads_[current_tid_].buffer;
  if (!buffer) return {};
  bs_buffer_header h;
  if (task_->read_some(remote_ptr<void>(buffer), &h, sizeof(h)) != sizeof(h) || h.diverged_reason == BS_DIVERGED_NONE) {
    return {};
  }
  // A record's number: a system call, or the library's rdtsc or rdtscp (tsc_call.c).
  auto name_of = [](uint32_t nr) -> std::string {
    if (nr == BS_CALL_RDTSC) return "rdtsc";
    if (nr == BS_CALL_RDTSCP) return "rdtscp";
    const sys::SyscallInfo* info = sys::lookup(nr);
    return info ? std::string(info->name) : "system call " + std::to_string(nr);
  };
  std::string call = name_of(h.diverged_nr);
  uint32_t cursor = h.cursor;
  uint32_t recorded_nr = 0;
  task_->read_some(remote_ptr<void>(buffer + sizeof(h) + cursor + offsetof(bs_record, nr)), &recorded_nr,
                   sizeof(recorded_nr));
  switch (h.diverged_reason) {
    case BS_DIVERGED_NR:
      return "a buffered call differs: the program made " + call + ", the recording has " + name_of(recorded_nr) +
             " here";
    case BS_DIVERGED_DATA:
      return "a buffered " + call + " writes other data than when it was recorded";
    case BS_DIVERGED_SIZE:
      return "a buffered " + call + " has a recorded output larger than the program's buffer";
    default:
      return "a buffered " + call + " differs from the recording (reason " + std::to_string(h.diverged_reason) + ")";
  }
}

void ReplaySession::consume_buffered_records() {
  uint64_t buffer = threads_[current_tid_].buffer;
  if (!buffer) return;
  bs_buffer_header h;
  if (task_->read_some(remote_ptr<void>(buffer), &h, sizeof(h)) != sizeof(h) || h.mode != BS_MODE_REPLAY) return;
  if (h.used > BS_BUFFER_SIZE - BS_HOOK_STACK_SIZE - sizeof(h)) diverged("the thread's syscall buffer holds more records than it can");
  // What the library does as it returns each record (preload/syscall_hook.c,
  // buffer_replay.c): the cursor moves past it, the call count grows, a
  // descriptor a successful close-like call closed leaves the gates, and one
  // an open-like call created enters the gate its record names.
  while (h.cursor < h.used) {
    bs_record rec;
    if (h.used - h.cursor < sizeof(rec) ||
        task_->read_some(remote_ptr<void>(buffer + sizeof(h) + h.cursor), &rec, sizeof(rec)) != sizeof(rec) ||
        rec.size < sizeof(rec) || rec.size > h.used - h.cursor) {
      diverged("a malformed record in the thread's syscall buffer");
    }
    const sys::SyscallInfo* info = sys::lookup(rec.nr);
    if (info && info->buffer_closes && rec.ret == 0 && rec.check < BS_MAX_FDS) {
      h.fd_allowed[rec.check / 64] &= ~(uint64_t{1} << (rec.check % 64));
      h.fd_blocking[rec.check / 64] &= ~(uint64_t{1} << (rec.check % 64));
    }
    if (info && info->buffer_opens && rec.ret >= 0 && rec.ret < BS_MAX_FDS) {
      uint64_t bit = uint64_t{1} << (rec.ret % 64);
      if (rec.check == BS_OPENED_ALLOWED) h.fd_allowed[rec.ret / 64] |= bit;
      if (rec.check == BS_OPENED_BLOCKING) h.fd_blocking[rec.ret / 64] |= bit;
    }
    h.cursor += rec.size;
    h.calls++;
  }
  task_->write_bytes(remote_ptr<void>(buffer), &h, sizeof(h));
}

std::vector<std::pair<uint64_t, uint64_t>> ReplaySession::preload_library_code() {
  std::vector<std::pair<uint64_t, uint64_t>> code;
  for (const MapsEntry& m : read_proc_maps(task_->tid())) {
    if ((m.prot & PROT_EXEC) && m.name.find("libbackstep_preload.so") != std::string::npos) {
      code.emplace_back(m.start, m.end);
    }
  }
  return code;
}

}  // namespace backstep
