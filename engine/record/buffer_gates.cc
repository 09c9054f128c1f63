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
#include <sys/stat.h>

#include <cstddef>
#include <cstring>
#include <set>
#include <utility>

#include "engine/record/record_session.h"
#include "preload/preload_interface.h"

namespace backstep {
namespace {

constexpr uint64_t kFdBitsOffset = offsetof(bs_buffer_header, fd_allowed);
constexpr uint64_t kFdBlockingOffset = offsetof(bs_buffer_header, fd_blocking);

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
  for (int fd : closed) {
    for (trace::MemoryWrite& w : clear_descriptor_bits(t, fd, fd, t.buffer)) flush.writes.push_back(std::move(w));
  }
}

std::vector<trace::MemoryWrite> RecordSession::clear_descriptor_bits(RecordTask& t, int lo, int hi,
                                                                     uint64_t except) {
  std::vector<trace::MemoryWrite> made;
  lo = std::max(lo, 0);
  hi = std::min(hi, BS_MAX_FDS - 1);
  if (lo > hi) return made;
  std::set<uint64_t> buffers;
  for (auto& [tid, other] : record_tasks_) {
    if (other->process == t.process && other->buffer && other->buffer != except && other->run != RunState::Gone) {
      buffers.insert(other->buffer);
    }
  }
  for (uint64_t buffer : buffers) {
    // Both bitmaps: a closed descriptor is neither a quiet file nor a pipe.
    for (uint64_t bitmap : {kFdBitsOffset, kFdBlockingOffset}) {
      for (int w = lo / 64; w <= hi / 64; ++w) {
        uint64_t word_addr = buffer + bitmap + static_cast<uint64_t>(w) * 8;
        uint64_t word = 0;
        if (t.task.read_some(remote_ptr<void>(word_addr), &word, sizeof(word)) != sizeof(word)) continue;
        uint64_t cleared = word;
        for (int fd = std::max(lo, w * 64); fd <= std::min(hi, w * 64 + 63); ++fd) cleared &= ~(uint64_t{1} << (fd % 64));
        if (cleared == word) continue;
        t.task.write_bytes(remote_ptr<void>(word_addr), &cleared, sizeof(cleared));
        std::vector<uint8_t> bytes(sizeof(cleared));
        std::memcpy(bytes.data(), &cleared, sizeof(cleared));
        made.push_back({word_addr, std::move(bytes)});
      }
    }
  }
  return made;
}

void RecordSession::allow_descriptor(RecordTask& t, SyscallContext& ctx, int fd) {
  if (fd < 0 || fd >= BS_MAX_FDS) return;
  Task& task = t.task;
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
  std::set<std::pair<RecordProcess*, uint64_t>> buffers;
  for (auto& [tid, other] : record_tasks_) {
    if (other->process && other->process != t->process && other->buffer && other->run != RunState::Gone) {
      buffers.insert({other->process, other->buffer});
    }
  }
  for (const auto& [process, buffer] : buffers) {
    RecordTask* owner = nullptr;
    for (auto& [tid, other] : record_tasks_) {
      if (other->process == process && other->buffer == buffer && other->run != RunState::Gone) owner = other.get();
    }
    if (!owner) continue;
    for (uint64_t bitmap : {kFdBitsOffset, kFdBlockingOffset}) {
      uint64_t words[BS_MAX_FDS / 64];
      if (owner->task.read_some(remote_ptr<void>(buffer + bitmap), words, sizeof(words)) != sizeof(words)) continue;
      for (int w = 0; w < BS_MAX_FDS / 64; ++w) {
        uint64_t cleared = words[w];
        for (int bit = 0; bit < 64 && words[w]; ++bit) {
          if (!(words[w] >> bit & 1)) continue;
          std::optional<DescriptorCache::File> f = descriptors_.file(owner->tid(), w * 64 + bit);
          if (!f || (f->dev == dev && f->ino == ino)) cleared &= ~(uint64_t{1} << bit);
        }
        if (cleared == words[w]) continue;
        try {
          owner->task.write_bytes(remote_ptr<void>(buffer + bitmap + static_cast<uint64_t>(w) * 8), &cleared,
                                  sizeof(cleared));
        } catch (const std::exception&) {
          // Going away (an exec, an exit): it buffers nothing more here.
        }
      }
    }
  }
}

}  // namespace backstep
