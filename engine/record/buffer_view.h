// The recorder's own view of a thread's syscall buffer (preload/).
//
// The library maps its buffer as private anonymous memory, and replay keeps
// it so. While recording, the recorder puts a memfd holding the same bytes
// in its place, mapped shared in the program and here, so that a flush reads
// the records with one memcpy: through /proc/PID/mem a MiB costs about
// 700 us on this machine (the kernel pins and copies page by page), against
// 45 us for the copy. Nothing the program or replay can see changes but the
// mapping's kind and name in the program's /proc/self/maps.
//
// What keeps the memory private in every other way (record_buffers.cc):
// a fork's child gets its own copies at once (a shared mapping would be
// shared with the parent), MADV_DONTNEED and MADV_REMOVE zero the view as
// they would private memory, and a call that unmaps or maps over the buffer
// ends the view (reads go through /proc/PID/mem again, as without one).
#pragma once

#include <signal.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace backstep {

class Task;

class BufferView {
 public:
  // Replaces `size` bytes of the task's memory at `addr` (a buffer the
  // library mapped read-write) by a shared mapping holding `contents`, or
  // what the task holds there when null, and maps it here too. Runs system
  // calls in the task, from its tool page; signals that reach it meanwhile
  // are appended to `held`. Returns null where the kernel refuses a step,
  // with the task's memory as it was; throws if not even that could be had.
  static std::unique_ptr<BufferView> share(Task& task, uint64_t addr, uint64_t size, const uint8_t* contents,
                                           std::vector<siginfo_t>& held);
  ~BufferView();
  BufferView(const BufferView&) = delete;
  BufferView& operator=(const BufferView&) = delete;

  uint8_t* bytes() const { return base_; }
  uint64_t addr() const { return addr_; }
  uint64_t size() const { return size_; }
  bool overlaps(uint64_t start, uint64_t len) const { return start < addr_ + size_ && addr_ < start + len; }

 private:
  BufferView(uint8_t* base, uint64_t addr, uint64_t size) : base_(base), addr_(addr), size_(size) {}
  uint8_t* base_;
  uint64_t addr_, size_;
};

// Gives the task private anonymous memory at `addr` again, holding
// `contents` (a child's copy of its parent's buffer, where share() failed).
// False if the kernel refused.
bool make_buffer_private(Task& task, uint64_t addr, uint64_t size, const uint8_t* contents,
                         std::vector<siginfo_t>& held);

}  // namespace backstep
