// What a debugger front end (the gdb server) can do with a recording. The
// server speaks only to this interface; ReplayTimeline implements it. Values
// are in the engine's terms: registers in the kernel's layout, Linux signal
// numbers, addresses as integers. gdb's numbering lives in gdbserver/.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "values/cpu_state.h"
#include "values/registers.h"
#include "values/watch_kind.h"

namespace backstep {

enum class RunDirection { Forward, Backward };

// The end of x86-64 user space: the kernel's TASK_SIZE_MAX with 4-level page
// tables, one page below 2^47. No process maps memory at or past it (a
// non-canonical address faults), and the kernel refuses a debug register
// there (ptrace(POKEUSER) fails with EINVAL).
inline constexpr uint64_t kUserSpaceEnd = 0x7ffffffff000;

// [addr, addr + len) is not empty, does not wrap, and lies below kUserSpaceEnd:
// where a breakpoint or watchpoint can be.
inline bool in_user_space(uint64_t addr, uint64_t len) {
  return len > 0 && addr < kUserSpaceEnd && len <= kUserSpaceEnd - addr;
}

enum class TrapKind { Software, Hardware };

struct TargetStop {
  enum class Kind {
    Breakpoint,    // at `address`, before its instruction
    Watchpoint,    // `address` (in `watch_kind` terms) was written/read
    Step,          // one instruction (or a step range) done
    Signal,        // the program received `signal` (a fatal fault: continuing kills it)
    Syscall,       // catch-syscall stop: `syscall` entry (or return with `syscall_return`)
    HistoryStart,  // going backward, reached the start of the recording
    HistoryEnd,    // going forward, reached the end (the program is about to exit,
                   // or the trace was cut short); the program is still there
    Exited,        // the program exited with `exit_code`
    Killed,        // the program was killed by `signal`
    Interrupted,   // the client asked to stop (^C)
    Exec,          // going forward, the program exec'd `exec_path` (only when asked:
                   // set_report_exec); it stands at the new program's first instruction
    Fork,          // going forward, thread `tid` made process `child` (a fork, or a
                   // vfork when `vfork`), and stands after that call (only when
                   // asked: set_report_forks); the child is not debugged
  };
  Kind kind = Kind::Step;
  pid_t tid = 0;             // recorded thread id
  uint64_t address = 0;
  WatchKind watch_kind = WatchKind::Write;
  int signal = 0;            // Linux signal number
  int exit_code = 0;
  int syscall = -1;
  bool syscall_return = false;
  std::string exec_path;  // Exec: the new program, as the recording named it
  pid_t child = 0;           // Fork: the new process (its pid and first tid), as recorded
  bool vfork = false;        // Fork: by vfork (CLONE_VFORK)
  Registers child_regs;      // Fork: the child's registers as it starts
  bool hardware = false;     // Breakpoint: set as a hardware breakpoint
};

inline const char* to_string(TargetStop::Kind kind) {
  switch (kind) {
    case TargetStop::Kind::Breakpoint: return "breakpoint";
    case TargetStop::Kind::Watchpoint: return "watchpoint";
    case TargetStop::Kind::Step: return "step";
    case TargetStop::Kind::Signal: return "signal";
    case TargetStop::Kind::Syscall: return "syscall";
    case TargetStop::Kind::HistoryStart: return "history-start";
    case TargetStop::Kind::HistoryEnd: return "history-end";
    case TargetStop::Kind::Exited: return "exited";
    case TargetStop::Kind::Killed: return "killed";
    case TargetStop::Kind::Interrupted: return "interrupted";
    case TargetStop::Kind::Exec: return "exec";
    case TargetStop::Kind::Fork: return "fork";
  }
  return "?";
}

struct ResumeRequest {
  RunDirection direction = RunDirection::Forward;
  enum class How { Continue, Step, RangeStep } how = How::Continue;
  uint64_t range_start = 0, range_end = 0;  // RangeStep: step while pc is in [start, end)
  // Step, RangeStep: the thread to step (recorded tid; 0: the one due to
  // run, or backward the one that ran last). Forward, the others run as
  // recorded until its turn comes; backward, they go back with it to its
  // previous instruction.
  pid_t thread = 0;
  // A signal (Linux number) to deliver first: honoured only in a diversion,
  // where the program runs live; a replay delivers what was recorded.
  int signal = 0;
};

struct CheckpointInfo {
  int id = 0;
  uint64_t event = 0;
  std::string where;  // human-readable position
};

// One mapping of the replayed process, as /proc/PID/maps shows it, with a
// mapped copy of a recorded file named by its path on the recording host.
struct MemoryMapping {
  uint64_t start = 0, end = 0;
  bool readable = false, writable = false, executable = false;
  std::string name;  // "/usr/lib/x86_64-linux-gnu/libc.so.6", "[stack]", "" (anonymous)
};

// The checkpoints' processes (`monitor checkpoint-stats`). Automatic
// checkpoints (left along replay and by searches) are bounded by `limit`;
// the user's own and the one at the start of history are not counted.
struct CheckpointStats {
  std::size_t limit = 0;
  std::size_t automatic = 0;  // live now
  std::size_t peak = 0;       // most automatic ones live at once
  std::size_t user = 0;       // made with `monitor checkpoint`
  uint64_t evicted = 0;       // automatic ones dropped to stay within the limit
  uint64_t memory_limit_kib = 0;
  uint64_t memory_kib = 0;           // held by the automatic ones now (proportional share)
  uint64_t evicted_for_memory = 0;   // of `evicted`, dropped to stay within memory_limit_kib
};

class DebugTarget {
 public:
  virtual ~DebugTarget() = default;

  // Identity of the recorded process.
  virtual pid_t process_id() const = 0;
  // The live threads (recorded tids, in creation order) and their names.
  virtual std::vector<pid_t> thread_ids() const = 0;
  virtual std::string thread_name(pid_t tid) const = 0;
  virtual std::string exe_path() const = 0;
  // Its command line (the arguments of its last exec) and the directory the
  // recording started in: what /proc/PID/cmdline and cwd said then.
  virtual std::vector<std::string> command_line() const = 0;
  virtual std::string start_directory() const = 0;
  virtual const std::vector<CpuidLeaf>& cpu_features() const = 0;

  // The current state, of thread `tid` (0: the thread of the last stop).
  // Registers of a thread that does not exist throw.
  virtual Registers registers(pid_t tid) = 0;
  virtual std::vector<uint8_t> xstate(pid_t tid) = 0;  // XSAVE area (may be empty)
  // Memory as the program sees it (breakpoints hidden). Shorter than `len`
  // where memory is unreadable.
  virtual std::vector<uint8_t> read_memory(uint64_t addr, std::size_t len) = 0;
  virtual std::vector<uint8_t> auxv() = 0;
  // The siginfo of the last signal stop, if any (128 bytes).
  virtual std::vector<uint8_t> siginfo() = 0;

  // Changes (diversions, engine/timeline/diversion.h). A replay cannot
  // change the past: a write that changes something moves the debugger into
  // a diversion, a live copy of the program at this position where writes
  // and resumes are honoured (a function call); reads then see the copy. A
  // write that changes nothing outside one is accepted and does nothing.
  // The diversion ends, and everything is as recorded again, once a
  // function ran there and every thread's registers are back to the
  // replay's, when the client resumes with the registers back, goes
  // backwards, or restarts. Register writes throw std::out_of_range for no
  // such thread.
  virtual void write_registers(pid_t tid, const Registers& regs, const std::vector<uint8_t>& xstate) = 0;
  // Bytes written (fewer where memory is not mapped).
  virtual std::size_t write_memory(uint64_t addr, const std::vector<uint8_t>& bytes) = 0;
  // lldb's _M/_m: fresh memory in the diversion (`prot`: PROT_* bits).
  virtual std::optional<uint64_t> allocate_memory(uint64_t size, int prot) = 0;
  virtual bool deallocate_memory(uint64_t addr) = 0;
  // In a diversion whose registers are not the replay's: a function the
  // debugger called is under way (reverse execution is refused there).
  virtual bool in_called_function() = 0;
  // Text for the user about the last request (a diversion that ended
  // unexpectedly), once; empty for none.
  virtual std::string take_note() = 0;

  // Breakpoints and watchpoints follow the user across checkpoints.
  // A breakpoint: false outside user space, or when kMaxBreakpoints are set
  // already (each is an int3 to write at every resume).
  static constexpr std::size_t kMaxBreakpoints = 4096;
  virtual bool set_breakpoint(uint64_t addr, TrapKind kind) = 0;
  virtual bool remove_breakpoint(uint64_t addr, TrapKind kind) = 0;
  // A watchpoint is the debug registers: four slots of up to 8 aligned
  // bytes, so at most kMaxWatchLength bytes (fewer where the range is not
  // 8-aligned). Any address and length in user space; false when the debug
  // registers run out or cannot cover the range.
  static constexpr uint64_t kMaxWatchLength = 32;
  virtual bool set_watchpoint(uint64_t addr, uint64_t len, WatchKind type) = 0;
  virtual bool remove_watchpoint(uint64_t addr, uint64_t len, WatchKind type) = 0;
  // Syscalls to stop at (empty set + `all`: every syscall); nullopt: none.
  virtual void set_catch_syscalls(std::optional<std::vector<int>> syscalls) = 0;
  // Signals (Linux numbers) that do not stop the program on their way to it.
  virtual void set_pass_signals(const std::vector<int>& linux_signals) = 0;
  // Whether a forward run stops where the debugged process execs a new
  // program (an Exec stop: gdb's exec-events, `catch exec`).
  virtual void set_report_exec(bool report) = 0;
  // Whether a forward run stops where the debugged process creates a
  // process (a Fork stop: gdb's fork-events and vfork-events, `catch fork`).
  virtual void set_report_forks(bool report) = 0;

  // Runs until something stops it. `interrupted` is polled between stops.
  virtual TargetStop resume(const ResumeRequest& request, const std::function<bool()>& interrupted) = 0;

  // Positions.
  virtual uint64_t current_event() const = 0;
  // What the replay has done so far, for progress notes while a long
  // request runs: events taken (by every session, checkpoints' too), the
  // number of the last one, and how many the recording has (0: unknown).
  struct Activity {
    uint64_t events_taken = 0;
    uint64_t last_event = 0;
    uint64_t event_count = 0;
  };
  virtual Activity activity() = 0;
  virtual std::string describe_position() const = 0;
  // Back to the start of the recording, or to the boundary before `event`.
  virtual void restart(std::optional<uint64_t> event) = 0;
  virtual int create_checkpoint() = 0;
  virtual bool delete_checkpoint(int id) = 0;
  virtual std::vector<CheckpointInfo> checkpoints() const = 0;
  virtual bool restart_checkpoint(int id) = 0;
  virtual CheckpointStats checkpoint_stats() const = 0;
  // At most `limit` (>= 1) automatic checkpoints from now on; the extra
  // ones are evicted at once.
  virtual void set_checkpoint_limit(std::size_t limit) = 0;
  // At most `kib` KiB held by automatic checkpoints (>= 1024); enforced now
  // and every few checkpoints made.
  virtual void set_checkpoint_memory_limit(uint64_t kib) = 0;

  // Files of the recording: the trace's copy of a file the program mapped,
  // by its path on the recording host (for vFile and qXfer:exec-file).
  virtual std::optional<std::string> recorded_file(const std::string& path) const = 0;
  // The program's loaded libraries for qXfer:libraries-svr4 (empty: let
  // the client walk the link map).
  virtual std::string libraries_svr4_xml() = 0;
  // Where the executable's DT_DEBUG entry keeps its value (the dynamic
  // linker stores &r_debug there); nullopt for a program without one
  // (static). lldb finds the libraries from it (qShlibInfoAddr).
  virtual std::optional<uint64_t> debug_pointer_address() = 0;
  // The replayed process's mappings, in address order.
  virtual std::vector<MemoryMapping> memory_map() = 0;
  // Where thread `tid` keeps the thread-local variable at `offset` in the
  // TLS block of the module whose struct link_map is at `link_map`
  // (qGetTLSAddr): the address, or why there is none (no such thread, a C
  // library that does not describe its TLS structures, a block the thread
  // has not allocated yet).
  struct TlsAddress {
    std::optional<uint64_t> addr;
    std::string why;
  };
  virtual TlsAddress tls_address(pid_t tid, uint64_t link_map, uint64_t offset) = 0;
};

}  // namespace backstep
