// A diversion: a copy of the replay, forked at the debugger's position,
// that runs live, outside the recording, so that the debugger can change
// registers and memory and call functions of the program (gdb's `print
// f(3)`, lldb's `expression`). Nothing it does reaches the replay: when it
// ends (ReplayTimeline::end_diversion, timeline_diversion.cc) its processes
// are killed and the debugger is back at the replay's position, unchanged.
//
// Inside, only the thread the debugger resumes runs; the others stay
// stopped. Its system calls go to the kernel where their effects stay in
// the process (memory, writes to stdout and stderr, signal masks, clocks),
// get the recorded answer where one exists (getpid, gettid), and fail with
// ENOSYS otherwise (diversion_syscalls.cc), each refusal told to the user.
// The kernel holds the copy to that: a seccomp filter installed in each of
// its processes before any code runs there (diversion_sandbox.h). The
// preload library's buffers are switched off in the copy, so every call
// reaches the server.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "engine/core/int3_patches.h"
#include "engine/replay/replay_session.h"
#include "engine/timeline/debug_target.h"

namespace backstep {

// What a diversion does with one system call (diversion_syscalls.cc).
struct DiversionCall {
  enum class Action {
    Run,     // the kernel runs it
    Answer,  // it is not run; its result is `result`
  };
  Action action = Action::Run;
  int64_t result = 0;
  bool refused = false;  // the sandbox refuses it (result: -ENOSYS); the user is told
};

// The recorded identity a diverted call may need.
struct DiversionIdentity {
  uint32_t pid = 0;  // recorded pid of the debugged process
  uint32_t tid = 0;  // recorded tid of the thread making the call
};

// Decides a call from its registers at entry and its ABI (AUDIT_ARCH_*,
// from PTRACE_GET_SYSCALL_INFO: an `int 0x80` call is AUDIT_ARCH_I386).
DiversionCall diversion_call(const Registers& entry, uint32_t arch, const DiversionIdentity& who);
// "system call 2 (open)", "32-bit system call 15 (chmod)".
std::string describe_refused_call(const Registers& entry, uint32_t arch);
// Whether the call at `entry` makes a new process (not a thread).
bool makes_process(const Registers& entry, uint32_t arch);

class Diversion {
 public:
  // `copy`: a clone of the replay at the position (ReplaySession::clone);
  // `pid`: the recorded pid of the debugged process.
  Diversion(std::unique_ptr<ReplaySession> copy, uint32_t pid);
  ~Diversion();
  Diversion(const Diversion&) = delete;
  Diversion& operator=(const Diversion&) = delete;

  Registers registers(uint32_t tid);
  std::vector<uint8_t> xstate(uint32_t tid);
  // The siginfo of the signal a Signal stop reported (128 bytes).
  std::vector<uint8_t> siginfo(uint32_t tid);
  // Replaces the thread's registers and (when not empty) XSAVE area.
  void set_registers(uint32_t tid, const Registers& regs, const std::vector<uint8_t>& xstate);
  // Whether the thread's registers were written or it ran here: until then
  // they are the replay's.
  bool touched(uint32_t tid) const { return touched_.count(tid) != 0; }
  const std::set<uint32_t>& touched_threads() const { return touched_; }

  std::vector<uint8_t> read_memory(uint64_t addr, std::size_t len);
  // Bytes written (fewer where memory is not mapped).
  std::size_t write_memory(uint64_t addr, const std::vector<uint8_t>& bytes);
  // The debugger's own memory (client_memory.h) mapped at `addr` with
  // `bytes` (`prot`: PROT_* bits), false if the copy has something there;
  // and unmapped again.
  bool map_client_region(uint64_t addr, int prot, const std::vector<uint8_t>& bytes);
  void unmap_client_region(uint64_t addr, uint64_t size);
  // The copy's mappings now (address ranges only).
  std::vector<MemoryMapping> memory_map();

  // Runs thread `tid` (a step or until something stops it), delivering
  // `signal` (Linux number, 0: none) first. Stops: Breakpoint (at one of
  // `breakpoints`, before its instruction), Step, Signal (the thread got a
  // signal: not delivered yet; a later resume with it delivers it),
  // Interrupted, or Exited/Killed when the copy's process ended (the
  // diversion is then over: ended() is true).
  TargetStop resume(uint32_t tid, bool step, int signal, const std::set<uint64_t>& breakpoints,
                    const std::function<bool()>& interrupted);
  // Code of the program ran here (a function was called).
  bool has_run() const { return has_run_; }
  // The calls the sandbox refused since the last call of this, each once
  // ("system call 2 (open)"), in the order first seen.
  std::vector<std::string> take_refused_calls() { return std::exchange(refused_, {}); }
  // Whether one of them would have made a process (fork, vfork, clone
  // without CLONE_THREAD, clone3): what gdb's own `checkpoint` command
  // calls in the program.
  bool take_refused_fork() { return std::exchange(refused_fork_, false); }
  bool ended() const { return ended_; }

 private:
  Task& task(uint32_t tid);
  // An instruction the replay traps (rdtsc, rdtscp, cpuid under faulting)
  // answered in place; false if the fault at the pc is not one.
  bool emulate_trapped_instruction(Task& t);
  void insert_breakpoints(Task& t, const std::set<uint64_t>& breakpoints);
  void remove_breakpoints(Task& t);
  void note_refused(const std::string& call);

  std::unique_ptr<ReplaySession> copy_;
  uint32_t pid_;
  std::set<uint32_t> touched_;
  Int3Patches int3s_;  // the breakpoints in while a resume runs
  std::vector<std::string> refused_;
  bool refused_fork_ = false;
  bool has_run_ = false;
  bool ended_ = false;
};

}  // namespace backstep
