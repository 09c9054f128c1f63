// The recorder's descriptor gates for syscall buffering (preload/
// preload_interface.h: fd_allowed, fd_blocking): which descriptors a
// thread's library may buffer calls on, and clearing them when that stops
// being true (a close, a dup over it, a mapping of the file).
//
// Bits are set at the exit of a traced gated call on the descriptor, when
// the call could not have needed the recorder: fd_allowed for a directory, a
// regular file no process maps, or a quiet device; fd_blocking (for the
// calls that may block, made with the desched event armed) for a pipe or a
// socket. Never backstep's own stdout or stderr, never /proc. Each bit the
// recorder writes into the calling process is memory its event wrote.
//
// A descriptor a buffered call creates (openat) is gated by the library
// itself, by the same rules, as the call returns: no stop comes between an
// open and the first call on the new descriptor. The recorder gives it
// what it cannot see (gate_opens, proc_dev, kept_out: every file mapped and
// our own stdout and stderr); the record carries the decision, which
// replay's library applies at the same call.
#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {
namespace {

constexpr uint64_t kFdBitsOffset = offsetof(bs_buffer_header, fd_allowed);
constexpr uint64_t kFdBlockingOffset = offsetof(bs_buffer_header, fd_blocking);
constexpr uint64_t kKeptOutOffset = offsetof(bs_buffer_header, kept_out);
constexpr std::size_t kKeptOutWords = BS_KEPT_OUT_BITS / 64;

// Adds file (dev, ino) to a kept_out filter; whether a bit changed.
bool add_kept_out(std::vector<uint64_t>& filter, dev_t dev, ino_t ino) {
  uint64_t hash = bs_file_hash(dev, ino);
  bool changed = false;
  for (int i = 0; i < 2; ++i) {
    uint32_t b = bs_kept_out_bit(hash, i);
    uint64_t bit = uint64_t{1} << (b % 64);
    changed |= (filter[b / 64] & bit) == 0;
    filter[b / 64] |= bit;
  }
  return changed;
}

// Character devices whose reads and writes never block and change nothing
// the recorder tracks.
bool quiet_device(dev_t dev, ino_t ino) {
  static const std::set<std::pair<dev_t, ino_t>> devices = [] {
    std::set<std::pair<dev_t, ino_t>> s;
    for (const char* path : {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}) {
      struct stat st;
      if (stat(path, &st) == 0 && S_ISCHR(st.st_mode)) s.emplace(st.st_dev, st.st_ino);
    }
    return s;
  }();
  return devices.count({dev, ino}) != 0;
}

}  // namespace

void RecordSession::forget_closed(RecordTask& t, const std::vector<int>& closed, trace::Event& flush) {
  // The thread's own library cleared their bits; the process's other
  // buffers still have them, and the descriptor cache knows the files.
  // Both change now, before any other thread runs again.
  descriptors_.table_changing(t.tid());
  descriptors_.table_changed(t.tid());
  if (closed.empty()) return;
  auto [lo, hi] = std::minmax_element(closed.begin(), closed.end());
  std::set<int> gone(closed.begin(), closed.end());
  for (trace::MemoryWrite& w :
       clear_descriptor_bits(t, *lo, *hi, t.buffer, [&gone](int fd) { return gone.count(fd) != 0; })) {
    flush.writes.push_back(std::move(w));
  }
}

std::vector<std::pair<RecordTask*, uint64_t>> RecordSession::live_buffers(
    const std::function<bool(const RecordTask&)>& keep) {
  // One live task per (process, buffer): threads may share a buffer, and
  // processes have theirs at the same addresses.
  std::map<std::pair<RecordProcess*, uint64_t>, RecordTask*> found;
  for (auto& [tid, other] : record_tasks_) {
    if (other->process && other->buffer && other->run != RunState::Gone && keep(*other)) {
      found.emplace(std::make_pair(other->process, other->buffer), other.get());
    }
  }
  std::vector<std::pair<RecordTask*, uint64_t>> buffers;
  for (const auto& [key, owner] : found) buffers.emplace_back(owner, key.second);
  return buffers;
}

std::vector<trace::MemoryWrite> RecordSession::clear_buffer_bits(RecordTask& owner, uint64_t buffer, int lo, int hi,
                                                                  const std::function<bool(int fd)>& drop) {
  std::vector<trace::MemoryWrite> made;
  lo = std::max(lo, 0);
  hi = std::min(hi, BS_MAX_FDS - 1);
  if (lo > hi) return made;
  // Both bitmaps: a descriptor gone is neither a quiet file nor a pipe.
  for (uint64_t bitmap : {kFdBitsOffset, kFdBlockingOffset}) {
    uint64_t words[BS_MAX_FDS / 64];
    int first = lo / 64, count = hi / 64 - first + 1;
    uint64_t words_addr = buffer + bitmap + static_cast<uint64_t>(first) * 8;
    std::size_t len = static_cast<std::size_t>(count) * 8;
    if (owner.task.read_some(remote_ptr<void>(words_addr), words, len) != len) continue;
    for (int i = 0; i < count; ++i) {
      int w = first + i;
      uint64_t cleared = words[i];
      for (int fd = std::max(lo, w * 64); fd <= std::min(hi, w * 64 + 63); ++fd) {
        uint64_t bit = uint64_t{1} << (fd % 64);
        if ((cleared & bit) && (!drop || drop(fd))) cleared &= ~bit;
      }
      if (cleared == words[i]) continue;
      uint64_t word_addr = words_addr + static_cast<uint64_t>(i) * 8;
      owner.task.write_bytes(remote_ptr<void>(word_addr), &cleared, sizeof(cleared));
      std::vector<uint8_t> bytes(sizeof(cleared));
      std::memcpy(bytes.data(), &cleared, sizeof(cleared));
      made.push_back({word_addr, std::move(bytes)});
    }
  }
  return made;
}

std::vector<trace::MemoryWrite> RecordSession::clear_descriptor_bits(RecordTask& t, int lo, int hi, uint64_t except,
                                                                     const std::function<bool(int fd)>& drop) {
  std::vector<trace::MemoryWrite> made;
  auto same_process = [&](const RecordTask& other) { return other.process == t.process && other.buffer != except; };
  for (auto [owner, buffer] : live_buffers(same_process)) {
    for (trace::MemoryWrite& w : clear_buffer_bits(*owner, buffer, lo, hi, drop)) made.push_back(std::move(w));
  }
  return made;
}

void RecordSession::allow_descriptor(RecordTask& t, SyscallContext& ctx, int fd) {
  if (fd < 0 || fd >= BS_MAX_FDS || !t.process) return;
  Task& task = t.task;
  // A vfork child's descriptors are not its parent's, whose buffer it uses.
  uint32_t gate_pid = 0;
  if (task.read_some(remote_ptr<void>(t.buffer + offsetof(bs_buffer_header, gate_pid)), &gate_pid, 4) != 4 ||
      gate_pid != static_cast<uint32_t>(t.process->pid)) {
    return;
  }
  uint64_t words[2] = {};  // fd_allowed's and fd_blocking's word of fd
  uint64_t offsets[2] = {kFdBitsOffset + static_cast<uint64_t>(fd / 64) * 8,
                         kFdBlockingOffset + static_cast<uint64_t>(fd / 64) * 8};
  for (int i = 0; i < 2; ++i) {
    if (task.read_some(remote_ptr<void>(t.buffer + offsets[i]), &words[i], 8) != 8) return;
  }
  uint64_t bit = uint64_t{1} << (fd % 64);
  if ((words[0] | words[1]) & bit) return;
  std::optional<DescriptorCache::File> f = descriptors_.file(task.tid(), fd);
  if (!f || f->proc || f->stdio) return;
  bool quiet = S_ISDIR(f->type) || (f->regular() && !mapped_object(f->dev, f->ino)) ||
               (S_ISCHR(f->type) && quiet_device(f->dev, f->ino));
  // A pipe or a socket: buffered too, by the calls that may block there,
  // with the desched event armed (preload/desched.c).
  bool blocking = !quiet && ctx.info.buffer_block && (S_ISFIFO(f->type) || S_ISSOCK(f->type));
  if (!quiet && !blocking) return;
  uint64_t word_addr = t.buffer + offsets[quiet ? 0 : 1];
  uint64_t word = words[quiet ? 0 : 1] | bit;
  task.write_bytes(remote_ptr<void>(word_addr), &word, sizeof(word));
  ctx.record_memory(word_addr, sizeof(word));
}

void RecordSession::start_kept_out() {
  if (!kept_out_.empty()) return;
  kept_out_.assign(kKeptOutWords, 0);
  for (auto [dev, ino] : descriptors_.original_stdio().files()) add_kept_out(kept_out_, dev, ino);
}

void RecordSession::publish_gate_rules(RecordTask& t) {
  start_kept_out();
  struct {
    uint32_t gate_opens, gate_pid;
    uint64_t proc_dev;
  } rules{1, static_cast<uint32_t>(t.process->pid), static_cast<uint64_t>(DescriptorCache::proc_device())};
  static_assert(offsetof(bs_buffer_header, gate_pid) == offsetof(bs_buffer_header, gate_opens) + 4);
  static_assert(offsetof(bs_buffer_header, proc_dev) == offsetof(bs_buffer_header, gate_opens) + 8);
  t.task.write_bytes(remote_ptr<void>(t.buffer + kKeptOutOffset), kept_out_.data(), kKeptOutWords * 8);
  t.task.write_bytes(remote_ptr<void>(t.buffer + offsetof(bs_buffer_header, gate_opens)), &rules, sizeof(rules));
}

void RecordSession::keep_out_of_gates(dev_t dev, ino_t ino) {
  if (!buffering()) return;
  start_kept_out();
  if (!add_kept_out(kept_out_, dev, ino)) return;
  // Every live buffer, of every process: a library anywhere may open the
  // file next. Not recorded, as replay's libraries never read the filter.
  for (auto [owner, buffer] : live_buffers([](const RecordTask&) { return true; })) {
    try {
      owner->task.write_bytes(remote_ptr<void>(buffer + kKeptOutOffset), kept_out_.data(), kKeptOutWords * 8);
    } catch (const std::exception&) {
      // Going away (an exec, an exit): it opens nothing more here.
    }
  }
}

void RecordSession::disallow_descriptors(RecordTask& t, SyscallContext& ctx, int lo, int hi) {
  if (!buffering() || !t.process) return;
  for (trace::MemoryWrite& w : clear_descriptor_bits(t, lo, hi, 0)) ctx.event.writes.push_back(std::move(w));
}

void RecordSession::forget_buffered_files(SyscallContext& ctx) {
  if (RecordTask* t = record_task(ctx.task.tid())) disallow_descriptors(*t, ctx, 0, BS_MAX_FDS - 1);
}

void RecordSession::forget_buffered_file_elsewhere(SyscallContext& ctx, dev_t dev, ino_t ino) {
  RecordTask* t = record_task(ctx.task.tid());
  if (!buffering() || !t || !t->process) return;
  // The other processes' buffers with a bit for that file: their buffered
  // writes to it would not reach this new mapping's memory. These writes are
  // not recorded (they are in other processes): replay does not need them,
  // since recording then takes the traced path at that process's next call
  // on the descriptor, after a flush of everything before it, and replay
  // takes the traced path wherever no record is left.
  auto other_process = [&](const RecordTask& other) { return other.process != t->process; };
  for (auto [owner, buffer] : live_buffers(other_process)) {
    auto that_file = [&, owner = owner](int fd) {
      std::optional<DescriptorCache::File> f = descriptors_.file(owner->tid(), fd);
      return !f || (f->dev == dev && f->ino == ino);
    };
    try {
      clear_buffer_bits(*owner, buffer, 0, BS_MAX_FDS - 1, that_file);
    } catch (const std::exception&) {
      // Going away (an exec, an exit): it buffers nothing more here.
    }
  }
}

}  // namespace backstep
