// General-purpose registers in the kernel's layout (`user_regs_struct`).
// gdb's numbering lives in gdbserver/, never here.
#pragma once

#include <sys/user.h>

#include <cstdint>
#include <string>
#include <vector>

#include "values/cpu_state.h"

namespace backstep {

// eflags bits the engine sets or clears around single steps and debug
// exceptions.
inline constexpr uint64_t kTrapFlag = 1u << 8;     // TF
inline constexpr uint64_t kResumeFlag = 1u << 16;  // RF

class Registers {
 public:
  Registers() = default;
  explicit Registers(const user_regs_struct& regs) : regs_(regs) {}
  static Registers from_block(const RegBlock& block);
  RegBlock to_block() const;

  const user_regs_struct& raw() const { return regs_; }
  user_regs_struct& raw() { return regs_; }

  uint64_t ip() const { return regs_.rip; }
  void set_ip(uint64_t v) { regs_.rip = v; }
  uint64_t sp() const { return regs_.rsp; }
  uint64_t syscallno() const { return regs_.orig_rax; }
  void set_syscallno(uint64_t v) { regs_.orig_rax = v; }
  int64_t syscall_result() const { return static_cast<int64_t>(regs_.rax); }
  void set_syscall_result(uint64_t v) { regs_.rax = v; }
  // Syscall argument 0..5 (rdi, rsi, rdx, r10, r8, r9).
  uint64_t arg(int i) const;
  void set_arg(int i, uint64_t v);

  // Name of word `index` of the kernel layout ("rax", "orig_rax", ...).
  static const char* word_name(std::size_t index);

  // The words that differ from `before` (for trace::Event::reg_changes).
  std::vector<RegChange> changes_since(const Registers& before) const;
  void apply(const std::vector<RegChange>& changes);

  // Registers compared for divergence: every word, with the trap flags masked
  // out of eflags (RF and TF are set by debug traps, not by the program).
  // Returns a human-readable list of differences, empty if equal.
  static std::string differences(const Registers& recorded, const Registers& live);
  bool same_state(const Registers& other) const { return differences(*this, other).empty(); }
  // Whether the sixteen general-purpose registers are equal (what a
  // counting stub that matches registers compares, counting_stub.h).
  bool same_gprs(const Registers& other) const;

 private:
  user_regs_struct regs_{};
};

// The registers without the trap and resume flags that single steps and
// breakpoints leave in eflags (what record and replay compare).
inline Registers without_trap_flags(Registers regs) {
  regs.raw().eflags &= ~(kTrapFlag | kResumeFlag);
  return regs;
}

}  // namespace backstep
