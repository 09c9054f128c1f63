#pragma once

// The int3 bytes the engine writes into one address space for software
// breakpoints, with the bytes they replaced. Replay and diversions both put
// their breakpoints in through this, only around a run, and take them out
// before anything else looks at memory.

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace backstep {

class Task;

class Int3Patches {
 public:
  // Each call is given a task of the address space these patches are in:
  // which of its threads runs (and so which Task is at hand) changes.

  // Writes an int3 at `addr` and keeps the byte it replaces. An address
  // that already holds one of these is left alone, so that the kept byte
  // stays the program's own and never becomes 0xcc. False, and nothing
  // written, where `addr` cannot be read (not mapped, or not yet). A write
  // that fails throws (Task::write_bytes), and nothing is kept then.
  bool insert(Task& task, uint64_t addr);
  // Puts back the original byte at `addr` and forgets it (stepping over a
  // breakpoint the thread stands on); false if there was none there.
  bool remove(Task& task, uint64_t addr);
  // Puts back every original byte and forgets them all.
  void remove_all(Task& task);
  // Forgets them all without writing: the address space is gone.
  void forget_all() { originals_.clear(); }

  bool contains(uint64_t addr) const { return originals_.count(addr) != 0; }
  bool empty() const { return originals_.empty(); }
  // Address -> original byte, for the state digest's hidden bytes.
  const std::map<uint64_t, uint8_t>& originals() const { return originals_; }

  // `bytes` were read from memory at `addr`: puts the original byte where
  // one of these int3s lies within them, so that reads never show ours.
  void hide(uint64_t addr, uint8_t* bytes, std::size_t len) const;
  void hide(uint64_t addr, std::vector<uint8_t>& bytes) const { hide(addr, bytes.data(), bytes.size()); }

 private:
  std::map<uint64_t, uint8_t> originals_;  // address -> original byte
};

}  // namespace backstep
