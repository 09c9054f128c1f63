// Counting a loop's passes in the traced process itself, without a branch
// counter or a debug register: the instructions at an address move into a
// stub that counts down a word in its own page and traps at zero, then runs
// them and jumps back. Each arrival costs about a nanosecond where a
// breakpoint trap costs microseconds.
//
// Two users:
//  - the recorder (engine/record/counted_handover.cc) counts a computing
//    thread's arrivals at an instruction from the start of its time slice,
//    and at the slice's end stops it at the next arrival: a position named
//    by (instruction, arrivals since the thread's previous event), exact
//    without a digest or a stored state;
//  - replay counts down to that arrival (replay_counted_position.cc), and
//    the timeline counts the passes of the last stretch before a hit
//    (timeline_approach.cc).
//
// The stub keeps every register and flag: it spills rcx to its page and
// counts with mov, lea and jrcxz, which leave the flags alone, and uses no
// stack (the red zone below rsp is the program's). Its pages are mapped
// within a rel32 of the code, where nothing else is; disarm() puts the code
// back and unmaps them, so that the program's memory is as before (the code
// page is the process's own copy now, with the same bytes; state digests
// read writable memory only).
#pragma once

#include <signal.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/core/proc_maps.h"

namespace backstep {

class Registers;
class Task;

class CountingStub {
 public:
  // A countdown that never ends: counting only.
  static constexpr uint64_t kNoStop = uint64_t{1} << 62;

  // Moves the code at `addr` (5 bytes or more of whole instructions) into a
  // new stub that traps at the `countdown`-th arrival from now. Nothing
  // changes, and nullopt comes back, where the instructions cannot move
  // (one a jump may land inside, a fixed control flow), the code is not a
  // private executable mapping, or no page is free within reach. The task
  // must be stopped at a ptrace stop, and no thread of its process may
  // stand inside [addr, addr + 5).
  // Signals that stop the task on the way to the injected mmap are not
  // delivered; they are appended to `held` (Task::remote_syscall()).
  //
  // With `match`, only arrivals at which every general-purpose register
  // equals match's are counted (the flags are kept in the stub's page while
  // it compares; nothing outside it is written): replay finds a digest position
  // (trace::ForcedPosition) at native speed, computing the digest only at
  // the arrivals whose registers are the recorded ones.
  static std::optional<CountingStub> arm(Task& task, uint64_t addr, uint64_t countdown,
                                         std::vector<siginfo_t>* held = nullptr,
                                         const Registers* match = nullptr);
  // Whether arm() could move the code at `addr` (nothing is written).
  static bool possible(Task& task, uint64_t addr);
  static bool possible(Task& task, uint64_t addr, const std::vector<MapsEntry>& maps);
  // Where arm() could move the code at `addr` (possible()): the end of the
  // code a stub there would patch ([addr, end): the jump and the rest of
  // the instructions it covers); else nullopt.
  static std::optional<uint64_t> patched_end(Task& task, uint64_t addr);

  uint64_t addr() const { return addr_; }
  // Where an arrival goes on after the trap: the first moved instruction,
  // with every register the program's.
  uint64_t moved_start() const { return counted_end_; }
  uint64_t page() const { return page_; }
  static constexpr uint64_t pages() { return kPages; }
  // The end of the instructions that moved: [addr, end) is patched.
  uint64_t end() const { return addr_ + original_.size(); }
  bool patches(uint64_t ip) const { return ip >= addr_ && ip < end(); }
  // Whether `ip` lies in the stub's own pages.
  bool contains(uint64_t ip) const { return ip >= page_ && ip < page_ + kPages; }
  // The thread stopped at the countdown's trap (the int3 has run).
  bool trapped_at(uint64_t ip) const { return ip == trap_ + 1; }

  // Arrivals at `addr` since arm(), the one that trapped included.
  uint64_t arrivals(Task& task) const;
  // From now, trap at the `left`-th arrival (left >= 1). The thread must
  // not stand between the count's load and store (leave_count() first).
  void set_countdown(Task& task, uint64_t left);

  // A thread stopped inside the stub's counting instructions (an interrupt
  // or a signal came there) is single-stepped out of them, so that its
  // registers are the program's (rcx spilled) and the count is stored:
  // afterwards it stands at a moved instruction, at the jump back, at the
  // trap, or outside the stub. Signals that stop it on the way are not
  // delivered; they are appended to `held`.
  void leave_count(Task& task, std::vector<siginfo_t>& held) const;
  // The program's own address for where a thread stands now, after
  // leave_count(): a moved instruction's original address, the end of the
  // moved code for the jump back, `addr` for the trap (before or after
  // it ran); `ip` itself outside the stub. Where it is inside [addr, end),
  // the thread may only run once the stub is disarmed.
  uint64_t program_ip(uint64_t ip) const;

  // leave_count(), then the thread at program_ip(): whether it stood at
  // the countdown's trap.
  bool leave(Task& task, std::vector<siginfo_t>& held) const;

  // Puts the code back and unmaps the stub's pages. A thread standing in
  // the stub must be moved out first (leave_count(), program_ip()).
  // Signals that stop the task on the way to the injected munmap are not
  // delivered; they are appended to `held` (without it, such a stop throws).
  void disarm(Task& task, std::vector<siginfo_t>* held = nullptr);
  // The two halves of disarm(): the code back (a memory write, possible at
  // any stop), then the pages unmapped (a system call made in the task,
  // which needs a stop where one can be injected).
  void put_code_back(Task& task);
  void unmap(Task& task, std::vector<siginfo_t>* held = nullptr);

 private:
  static constexpr uint64_t kPages = 2 * 4096;
  CountingStub() = default;

  uint64_t addr_ = 0;
  uint64_t page_ = 0;  // code, then the save slot and the count
  uint64_t trap_ = 0;  // the int3 the countdown ends at
  uint64_t counted_end_ = 0;  // first address after the counting instructions
  uint64_t trap_path_ = 0;    // the instructions before the trap that undo the counting's
  uint64_t jump_back_ = 0;    // the jmp to `end()`
  uint64_t initial_ = 0;      // the count it started from (set_countdown() moves it)
  std::vector<uint8_t> original_;  // the bytes the jump replaced
  // The moved instructions' addresses in the stub and in the program.
  std::vector<std::pair<uint64_t, uint64_t>> moved_;
};

}  // namespace backstep
