// Replays a trace: a fresh process whose address space is rebuilt from the
// Exec event, then driven event by event. Recorded syscalls are not executed
// (PTRACE_SYSEMU) except those that shape the address space; their results
// and memory writes come from the trace. Registers are compared at every
// event; the first mismatch stops replay with a divergence report.
//
// A session can run to the end (autopilot), or be driven in small steps by
// the timeline: resume with breakpoints, watchpoints or single-stepping, and
// be cloned (a fork of the replayed process) to make a checkpoint.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/counting_stub.h"
#include "engine/core/hit_counter.h"
#include "engine/core/int3_patches.h"
#include "engine/core/time_sampler.h"
#include "engine/core/x86_memory_access.h"
#include "values/registers.h"
#include "engine/core/session.h"
#include "values/watch_kind.h"
#include "engine/replay/address_space.h"
#include "engine/replay/comm_files.h"
#include "engine/replay/shared_memory.h"
#include "engine/trace/reader.h"
#include "engine/trace/stored_state.h"

namespace backstep {

class ReplayDivergence : public std::runtime_error {
 public:
  ReplayDivergence(uint64_t event, const std::string& what)
      : std::runtime_error("replay diverged at event " + std::to_string(event) + ": " + what),
        event_(event) {}
  uint64_t event() const { return event_; }

 private:
  uint64_t event_;
};

struct ReplayOptions {
  bool echo_stdio = true;  // re-emit the program's stdout/stderr
  // Called with the number of the next event each time one is taken (the
  // progress line of `replay --autopilot` on a terminal); may be empty.
  std::function<void(uint64_t next_event)> progress;
  // Nobody watches the passes round a loop (no debugger: `--autopilot`): a
  // forced position that carries the recorded state is taken from it at
  // once instead of after kSearchHits passes (replay_position.cc).
  bool unwatched = false;
};

// What the replay sessions of this process have done so far: events taken,
// and the number of the last one. A server reports it while a long request
// runs (its checkpoints' sessions count too).
struct ReplayActivity {
  uint64_t events_taken = 0;
  uint64_t last_event = 0;
};
ReplayActivity replay_activity();

struct ReplayResult {
  enum class End { Exited, RecordingStopped, TraceCutShort };
  End end = End::Exited;
  int exit_status = 0;      // as a shell reports it (Exited)
  std::string message;      // why, for the other ends
  uint64_t events = 0;      // events replayed
};

struct Watchpoint {
  uint64_t addr = 0;
  uint64_t len = 1;  // any length, any alignment: see watch_slots()
  WatchKind kind = WatchKind::Write;
  auto operator<=>(const Watchpoint&) const = default;
};

// x86-64 has four debug registers, each watching 1, 2, 4 or 8 bytes at an
// address aligned to that length.
constexpr std::size_t kDebugRegisters = 4;
// So no watchpoint covers more than this (four 8-byte slots, 8-aligned).
constexpr uint64_t kLongestWatch = kDebugRegisters * 8;

// What one debug register watches.
struct WatchSlot {
  uint64_t addr = 0;
  uint64_t len = 1;  // 1, 2, 4 or 8; addr % len == 0
};

// The fewest aligned slots that together cover exactly [w.addr, w.addr +
// w.len): an int at an odd address takes three (1 + 2 + 1 bytes). A range
// that needs more than kDebugRegisters gets only the first
// kDebugRegisters + 1 of them, enough to tell that it cannot be armed: the
// cost stays the same whatever length a client asks for.
std::vector<WatchSlot> watch_slots(const Watchpoint& w);
// The debug registers a set of watchpoints needs (more than
// kDebugRegisters: some cannot be armed).
std::size_t watch_slot_count(const std::vector<Watchpoint>& watches);

// The breakpoints and watchpoints of one run (ReplaySession::Resume::traps).
// They belong to the run, never to the session: a session keeps none between
// runs, so a clone or a checkpoint carries none, and a run that names none
// stops at none, whatever the runs before it had.
struct Traps {
  std::set<uint64_t> breakpoints;
  // Armed in order while debug registers last; one that does not fit whole
  // is not armed (the timeline never sets more than fit).
  std::vector<Watchpoint> watchpoints;
  // Those of `breakpoints` that were set where nothing was mapped (gdb's
  // breakpoints in a library it still believes loaded, at the start of
  // the recording): their int3 goes in only once an executable mapping
  // holds the address, never into data mapped there.
  std::set<uint64_t> pending;
  // The program (ReplaySession::image()) each of `breakpoints` was set in;
  // one listed here goes in only while the debugged process runs that
  // program (an exec replaces the code it was set in). Unlisted: any.
  std::map<uint64_t, uint64_t> images;
  bool empty() const { return breakpoints.empty() && watchpoints.empty(); }
};

// Why resume() returned.
struct ReplayStop {
  enum class Kind {
    EventReplayed,  // an event was replayed (only with stop_after_event)
    Breakpoint,     // the PC is at a breakpoint, before its instruction
    Step,           // one instruction was executed
    Watchpoint,     // a watched range was written, or read (rwatch, awatch),
                    // after the instruction, or written by the kernel during
                    // the event just replayed
    EventPending,   // the program reached the next event, not replayed yet (only
                    // for events `stop_before` picks); the next resume replays it
    ProgramEnd,     // the next event ends the program (exit, fatal signal), or
                    // the program reached the call where the recording stopped
                    // (an Abort event with registers; at_pending_event())
    TraceEnd,       // the trace was cut short here
    Interrupted,    // Resume::interrupted asked to stop: the program stopped
                    // wherever it was in user code (replay_interrupt.cc)
  };
  Kind kind = Kind::EventReplayed;
  uint64_t address = 0;          // breakpoint or watched address
  WatchKind watch_kind = WatchKind::Write;  // Watchpoint: the kind of the one hit
  bool by_kernel = false;        // Watchpoint: written by a replayed syscall
  // The event replayed during this resume, if any (EventReplayed, Step
  // over a syscall, kernel Watchpoint).
  std::optional<uint64_t> event;
};

class ReplaySession : public Session {
 public:
  // Opens the trace and checks it can be replayed on this machine (throws
  // trace::TraceError or std::runtime_error with the reason). The replayed
  // process starts at the first instruction of the program.
  ReplaySession(const std::string& trace_dir, ReplayOptions options = {});
  ~ReplaySession() override;

  // Replays to the end of the trace. Throws ReplayDivergence.
  ReplayResult run_to_end();

  // Runs forward. Stops at the first of: a breakpoint, a watchpoint, one
  // instruction (single_step), the end of the event being replayed
  // (stop_after_event), the end of the program or trace.
  struct Resume {
    bool single_step = false;
    bool stop_after_event = false;
    // Which events to stop at before replaying them (EventPending).
    std::function<bool(const trace::Event&)> stop_before;
    // Polled every few milliseconds while the program runs towards an
    // event; once it returns true, the program is stopped where it is
    // (Interrupted), or at the first stop it reaches anyway
    // (replay_interrupt.cc).
    std::function<bool()> interrupted;
    // How often `interrupted` is asked while the program runs.
    std::chrono::milliseconds poll_period{20};
    // Where this run stops (in the debugged process only). For this run
    // alone: the next run has only those it names.
    Traps traps;
  };
  ReplayStop resume(Resume how);

  // A copy of this session at the same position (a fork of the replayed
  // process): a checkpoint.
  std::unique_ptr<ReplaySession> clone();
  // The live process of each address space of the replayed tree (to
  // measure what a checkpoint's memory costs).
  std::vector<pid_t> space_pids() const;
  // One task of each address space (each process, a vfork child sharing
  // its parent's counting once). In a copy made by clone() each address
  // space is one process: where a process-wide setting of a copy goes.
  std::vector<Task*> space_tasks() const;

  // For the next resume only: stop at the `hits`-th execution of `addr`
  // from here (an execution the pc stands on after a reported breakpoint
  // not counted, as an int3 would be stepped over), counted by the kernel
  // (engine/core/hit_counter.h) instead of an int3 stop at each; the stop
  // is a Breakpoint. False (nothing armed) if the kernel refuses; then the
  // caller counts int3 stops. The run's traps still stop it where they hit.
  bool set_counted_stop(uint64_t addr, uint64_t hits);
  // Counts, without stopping, the executions of each address by the
  // debugged process's threads from now until the next call (an empty set
  // stops counting); false if the kernel refuses. hit_counts() gives each
  // thread's (recorded tid) so far, for each address with a hit (an
  // execution the pc stood on when counting began for its thread, after a
  // reported breakpoint, not counted).
  bool set_hit_counting(std::set<uint64_t> addrs);
  struct HitCount {
    uint32_t tid = 0;
    uint64_t addr = 0;
    uint64_t hits = 0;
  };
  std::vector<HitCount> hit_counts() const;
  // A counting stub (replay_count_stub.cc), for a copy the caller throws
  // away or hands back with disarm_counting_stub(): the instructions at
  // `addr` (5 bytes or more of them) jump to a countdown in a page mapped
  // near them, which runs them and comes back, at ~1 ns an execution where
  // a debug register costs a debug exception. Its executions are counted
  // from now as set_hit_counting() counts (one the pc stands on after a
  // reported breakpoint not); with `stop_at` > 0, a run stops, Interrupted,
  // right before the stop_at-th. False (nothing changed) where the code at
  // `addr` cannot move, no page can be mapped within a rel32 of it, or one
  // of `breakpoints` (those the runs with the stub will name) lies inside
  // the moved instructions, where its int3 would move with them.
  bool arm_counting_stub(uint64_t addr, uint64_t stop_at, const std::set<uint64_t>& breakpoints);
  // Whether the code at `addr` can move into a counting stub (nothing is
  // mapped or written).
  bool counting_stub_possible(uint64_t addr);
  uint64_t counting_stub_count();
  // Puts the code back and unmaps the page; at the stub's stop, the thread
  // stands at `addr` before that execution as after a counted stop there
  // (a Breakpoint reported).
  void disarm_counting_stub();
  // The pc's execution counts as still to come: the thread stands before
  // it as a stop by the clock (an interrupt) leaves it, not as after a
  // reported breakpoint there (whose execution the next run passes over
  // uncounted). Where a breakpoint found a place first reached by the
  // clock again (a State anchor), so that what follows counts the same.
  void forget_breakpoint_report() { breakpoint_reported_ = false; }

  // CPU time of thread `tid` (recorded id), measured in the kernel from its
  // next run on (engine/core/time_sampler.h) until stop_run_clock(); false
  // if the kernel refuses. The clock is opened on that thread when it runs,
  // never on another (whose time says nothing of the stretch timed).
  // run_time_ns() reads it (0 before it started).
  bool start_run_clock(uint32_t tid);
  void stop_run_clock();
  uint64_t run_time_ns() const;
  // For the next run only: stop the thread the run clock measures (without
  // one, the thread that runs) once `after_ns` of its CPU time has passed
  // (no sooner than TimeSampler::kMinPeriodNs), wherever it is in user
  // code: an Interrupted stop, which is not reproducible
  // (replay_sampling.cc). 0 disarms it. False if the kernel refuses.
  bool set_time_sample(uint64_t after_ns);

  // Changes whenever this session runs the program (each resume), and
  // differs between sessions: what was read of the process (its mappings)
  // holds while it stays the same.
  std::pair<uint64_t, uint64_t> moves() const { return {serial_, runs_}; }
  // Number of the next event to replay: events before it have been replayed.
  uint64_t next_event() const { return next_number_; }
  // The program reached the next event without replaying it (EventPending,
  // or the Abort that ends a recording).
  bool at_pending_event() const { return at_pending_event_; }
  // The next event, without replaying it (nullptr when the trace is cut).
  const trace::Event* peek_next();
  // The kind of the last event replayed, its syscall number (Syscall) and
  // signal (FatalSignal/Signal).
  trace::EventKind last_event_kind() const { return last_kind_; }
  long last_syscall() const { return last_syscall_; }
  int last_signal() const { return last_signal_; }
  const std::vector<uint8_t>& last_siginfo() const { return last_siginfo_; }
  void set_echo(bool echo) { options_.echo_stdio = echo; }
  // How the program ends (valid at ProgramEnd / TraceEnd).
  ReplayResult end_result();

  // The thread whose event is next (or was last replayed): the one that runs.
  Task& task() { return *task_; }
  // The code of the preload library (its hook, trampoline and stubs:
  // replay_buffers.cc) in the current thread's address space, as
  // [start, end) ranges.
  std::vector<std::pair<uint64_t, uint64_t>> preload_library_code();
  // Where the current thread's buffered calls come back to the program: the
  // handled path of every stub in use (after it undid the red-zone step).
  std::set<uint64_t> buffered_call_returns();
  uint32_t current_thread() const { return current_tid_; }
  std::size_t thread_count() const { return threads_.size(); }
  // Processes of the tree that exist at this point; the one debugged (the
  // recording's first): only its threads are shown, and only it stops.
  std::size_t process_count() const { return processes_.size(); }
  uint32_t debuggee() const { return debuggee_; }
  // From here on, debug process `pid` (which must exist) instead.
  void set_debuggee(uint32_t pid);
  bool has_process(uint32_t pid) const { return processes_.count(pid) > 0; }
  // The Position event whose stored state (trace::StoredState) replay
  // holds the image of for process `pid`: the latest it has reached.
  std::optional<uint64_t> stored_state_event(uint32_t pid) const;
  // The recorded thread of the last event replayed.
  uint32_t last_event_tid() const { return last_tid_; }
  // The latest process the debugged process created (a fork, a vfork, a
  // clone of a new process), at its ProcessStart event: `event` is that
  // event's number (0: none yet), so a caller sees a new one come.
  struct Birth {
    uint64_t event = 0;
    uint32_t child = 0;    // its pid (and its first thread's tid), as recorded
    uint32_t creator = 0;  // the thread of the debugged process that made it
    bool vfork = false;    // CLONE_VFORK: the creator waits until it execs or exits
    Registers regs;        // the child's, as it starts
  };
  const Birth& last_birth() const { return last_birth_; }
  Registers registers() { return task_->regs(); }
  std::vector<uint8_t> xstate() { return task_->xstate(); }
  // Memory as the program sees it: breakpoint bytes hidden.
  std::vector<uint8_t> read_memory(uint64_t addr, std::size_t len);
  const trace::Header& header() const { return *header_; }
  const std::string& trace_dir() const { return trace_dir_; }
  // The Exec event of the debugged process's program (its own last exec,
  // or its creator's when it has not exec'd).
  const trace::Event& exec_event() const { return *execs_.at(debuggee_); }
  // The debugged process's program: the number of the event that exec'd
  // it (0: the recording's first, or its creator's before it exec'd).
  uint64_t image() const;
  // The first Exec event: the recording's first program.
  const trace::Event& first_exec_event() const { return *exec_; }

  // Threads as a debugger sees them (replay_thread_view.cc). Recorded tids
  // throughout; a thread parked at a system call's entry shows its
  // registers there.
  std::vector<uint32_t> thread_ids() const;  // live threads, in creation order
  bool has_thread(uint32_t tid) const;
  Registers thread_registers(uint32_t tid);  // throws std::out_of_range for no such thread
  std::vector<uint8_t> thread_xstate(uint32_t tid);
  // The name set with PR_SET_NAME (or inherited from the creating thread);
  // empty for the program's own name (its comm at exec).
  std::string thread_name(uint32_t tid) const;
  // The thread that ran last (the one a stop here belongs to), or, when it
  // has ended, the one whose event is next.
  uint32_t stopped_thread();
  // The thread that runs from here on: the next event's.
  uint32_t next_thread();
  // The thread entered a blocking call that has not returned yet (its
  // Syscall event, when it comes, runs no instruction).
  bool thread_in_call(uint32_t tid) const;
  // The task that replays thread `tid` (throws std::out_of_range for no
  // such thread) and the address of its syscall buffer (0: none): what a
  // diversion (engine/timeline/diversion.h) runs and quiets.
  Task& thread_task(uint32_t tid);
  uint64_t thread_buffer(uint32_t tid) const;

 private:
  ReplaySession(const ReplaySession& parent, pid_t child);
  void start();
  // Waits for the running task's next stop, polling interrupt_poll_ while
  // it runs (replay_interrupt.cc).
  WaitStatus wait_for_stop();
  std::optional<ReplayStop> run_to_event(const trace::Event& next, bool single_step, bool& stepping_over);
  // Position events (replay_position.cc).
  std::optional<ReplayStop> run_to_position(const trace::Event& next, bool single_step);
  // Counted ones (replay_counted_position.cc).
  std::optional<ReplayStop> run_to_counted_position(const trace::Event& next, bool single_step);
  // A stub at `site` for a position (counting_stub.h), where neither a
  // breakpoint of the user's nor the timeline's stub is in its way.
  std::optional<CountingStub> arm_position_stub(uint64_t site, uint64_t countdown, const Registers* match);
  std::optional<std::optional<ReplayStop>> run_to_position_by_match(const trace::Event& next);
  std::optional<ReplayStop> run_to_position_by_steps(const trace::Event& next, bool single_step);
  // What a SIGTRAP stop was, read at the stop: ptrace work in the thread
  // after it (single steps out of a counting stub, the injected munmap
  // that disarms one) replaces its siginfo and leaves a step's bits in DR6.
  // An int3 (a #BP: SI_KERNEL) leaves DR6 as the last debug exception set
  // it, so DR6 is read only for the others (replay_traps.cc).
  struct TrapFacts {
    siginfo_t si{};
    uint64_t dr6 = 0;
    bool int3() const { return si.si_code == SI_KERNEL; }
  };
  // After a run with a position's stub armed: the thread out of the stub,
  // the stub disarmed, and how the run ended, told before the steps out of
  // the stub replace the stop's registers and siginfo.
  struct StubExit {
    bool trapped = false;   // at the countdown's trap
    bool sampled = false;   // a time sample's stop (timeline_approach.cc)
    bool inside = false;    // stopped inside the stub: this arrival is counted
    uint64_t arrivals = 0;  // how many the stub counted
  };
  StubExit retire_position_stub(CountingStub& stub, const WaitStatus& ws, const TrapFacts* facts);
  bool at_position(const trace::Event& position, const Registers& live);
  // A search by digest for a position without a stored state that has
  // gone on for kSearchGiveUp, past kSearchDigests digests: a divergence,
  // named, rather than a replay that never ends.
  void give_up_search(uint64_t pc);
  // Whether the search for a Position may take its stored state, skipping
  // passes round the loop: not while the debugged process has a
  // breakpoint or a watchpoint that a skipped pass could hit.
  bool may_skip_passes() const;
  // At a Position (event_number_) of the current thread's process: lays
  // its stored state, if it has one, over the image of the process's
  // previous one, so that the whole state can be taken (every position on
  // the way must be followed, whether its state is taken or not). Whether
  // the image of this position's state is held now.
  bool follow_stored_state(const trace::Event& position);
  bool stored_state_held() const;
  // Threads (replay_threads.cc).
  void switch_to(uint32_t tid);
  void start_thread(const trace::Event& event);
  void end_thread(const trace::Event& event);
  // The current thread (of address space `space`) ended: none is current
  // until the next event, and task_ becomes another live one.
  void current_thread_ended(uint32_t space);
  void copy_threads_into(ReplaySession& copy);
  // Processes (replay_processes.cc).
  // A fork's child's copy of what MADV_WIPEONFORK and MADV_DONTFORK kept out of it.
  void apply_fork_differences(Task& child, const trace::Event& event);
  void start_process(const trace::Event& event);
  void exec_process(const trace::Event& event);
  void end_process(const trace::Event& event);
  // Whether `event` (an Exit) ends the last process, or the one debugged.
  bool ends_replay(const trace::Event& exit) const;
  // The current thread belongs to the process that is debugged: only there
  // do breakpoints, watchpoints and single steps apply.
  bool in_debuggee() const;
  void note_thread_name(const Registers& call, int64_t result);  // replay_thread_view.cc
  void jump_to_position(const trace::Event& position);
  void apply_event(const trace::Event& event, ReplayStop& stop);
  void replay_syscall(const trace::Event& event, ReplayStop& stop);
  void replay_vsyscall(const trace::Event& event, const Registers& exit);
  // A watchpoint stop when a watched range differs from `before`.
  void note_watched_change(const std::vector<std::vector<uint8_t>>& before, ReplayStop& stop);
  void check_registers(const trace::Event& event);
  void apply_effects(const trace::Event& event);
  void echo(const trace::Event& event);
  void restart_if_interrupted(const Registers& exit);
  void apply_pending_restart(const trace::Event& next);
  void check_written(const trace::Event& event, const Registers& entry, int64_t result);
  std::optional<trace::Event> take_event();
  void insert_breakpoints();
  void remove_breakpoints();
  void arm_watchpoints();
  // What the trap that stopped the program followed: a run, or a single
  // step (then a trap nothing else explains is the step's).
  enum class TrapAfter { Run, SingleStep };
  TrapFacts trap_facts();
  // With `facts`, the trap is the one they were read at; else the last stop's.
  bool classify_trap(ReplayStop& stop, TrapAfter after = TrapAfter::Run, const TrapFacts* facts = nullptr);
  // The first watchpoint whose range holds other bytes than `before`
  // (read watchpoints left out: a write is not a read).
  std::optional<Watchpoint> watched_range_changed(const std::vector<std::vector<uint8_t>>& before);
  std::vector<std::vector<uint8_t>> watched_values();
  static ReplayStop watch_stop(const Watchpoint& w);
  bool watches_reads() const;
  // With debug registers, a read watchpoint's slot watches every access:
  // a hit after which its bytes changed was a write, which a read
  // watchpoint does not report (rr's rule): the run goes on.
  WaitStatus resume_past_watched_writes(ResumeHow how);
  // Watchpoints where the debug registers do nothing (replay_soft_watch.cc).
  struct SoftWatchStop {
    WaitStatus status;                 // the last stop, when neither below
    std::optional<Watchpoint> hit;     // a watchpoint written or read
    bool interrupted = false;          // interrupt_poll_ asked to stop
  };
  bool watching_in_software() const;
  SoftWatchStop step_while_watching(bool one_step);
  // The memory the instruction at the pc touches (none if not decoded).
  std::vector<x86::MemoryAccess> next_instruction_accesses();
  // The first watchpoint the step just run hit: its range changed (not a
  // read watchpoint's) or, read by `accesses`, did not (not a write
  // watchpoint's). `before` is brought up to date.
  std::optional<Watchpoint> watch_hit(std::vector<std::vector<uint8_t>>& before,
                                      const std::vector<x86::MemoryAccess>& accesses);
  [[noreturn]] void diverged(const std::string& what) const;

  trace::TraceReader& reader();

  std::unique_ptr<trace::TraceReader> reader_;  // null until needed (clones)
  std::string trace_dir_;
  std::shared_ptr<const trace::Header> header_;
  uint64_t reader_position_ = 0;                // where a clone's reader starts
  ReplayOptions options_;
  std::shared_ptr<const trace::Event> exec_;
  Task* task_ = nullptr;
  uint64_t event_number_ = 0;   // the event being replayed
  uint64_t next_number_ = 0;    // the number of the event take_event() returns next
  // moves(): this session's own number (unique in the server) and its runs.
  uint64_t serial_ = next_serial();
  uint64_t runs_ = 0;
  static uint64_t next_serial() {
    static std::atomic<uint64_t> counter{0};
    return ++counter;
  }
  std::optional<trace::Event> peeked_;
  // Each address space's program break, as recorded, by ReplayThread::space.
  std::map<uint32_t, uint64_t> brk_;
  // The stub areas of each address space (by space): the executable's, from
  // its exec (engine/core/tool_page.h), and the preload library's, from its
  // first buffer's registration (replay_buffers.cc).
  std::map<uint32_t, std::vector<uint64_t>> stub_areas_;
  // The trace file copy each process holds open for its next mmap, by
  // ReplayThread::pid (a descriptor table; address_space.h). Not copied
  // into a checkpoint's session: its processes open their own again.
  std::map<uint32_t, OpenCopy> open_copies_;
  bool echo_failed_ = false;
  bool at_pending_event_ = false;  // the program reached the next event, not replayed yet
  // The pc is at a breakpoint whose hit was just reported: the next run
  // steps over it. Reached any other way (an event, a step, a watchpoint),
  // the breakpoint there is hit first, as the int3 would be.
  bool breakpoint_reported_ = false;

  trace::EventKind last_kind_ = trace::EventKind::Exec;
  long last_syscall_ = -1;
  int last_signal_ = 0;
  std::vector<uint8_t> last_siginfo_;

  // The traps of the run in progress (Resume::traps); empty between runs.
  Traps traps_;
  // For this run: the pending breakpoints (Traps::pending) found mapped,
  // and whether as code.
  std::map<uint64_t, bool> pending_code_;
  // The int3s in the current process while a run is in progress (none
  // between runs), with the bytes they replaced.
  Int3Patches int3s_;
  // An int3 at `addr` in the current process (any process of the tree;
  // insert_breakpoints() puts the user's in the debugged one only).
  void insert_breakpoint_at(uint64_t addr);
  // Whether the pending breakpoint at `addr` (Traps::pending) lies in code
  // now: false while nothing is mapped there; once something is, the
  // answer holds for the rest of the run.
  bool pending_is_code(uint64_t addr);
  // set_counted_stop(): armed at the next run (on the thread that runs),
  // closed when it returns.
  struct CountedStop {
    uint64_t addr = 0;
    uint64_t hits = 0;
  };
  std::optional<CountedStop> counted_stop_;
  std::unique_ptr<HitCounter> stop_counter_;
  // set_hit_counting(): one counter per address per thread that ran since.
  struct ThreadCounters {
    std::vector<std::unique_ptr<HitCounter>> counters;
    std::vector<uint64_t> offsets;  // executions not to count (see hit_counts())
  };
  std::set<uint64_t> counted_addrs_;
  std::map<uint32_t, ThreadCounters> hit_counters_;  // by recorded tid
  bool counting_failed_ = false;
  struct ArmedStub {
    CountingStub stub;
    uint64_t offset = 0;   // executions the stub counts and the caller does not: the one the pc stood on
                           // after a reported breakpoint (arm_counting_stub())
    bool trapped = false;
  };
  std::optional<ArmedStub> counting_stub_;
  // The run to a counted position: its event, the arrivals at its site
  // counted so far, and whether the thread stands on the last of them.
  struct PositionCount {
    uint64_t event = UINT64_MAX;
    uint64_t arrivals = 0;
    bool standing = false;
  };
  PositionCount position_count_;
  bool counting_stub_reached();
  void open_counters_for_run();
  bool counted_stop_reached(ReplayStop& stop, const siginfo_t& si);
  // start_run_clock() and set_time_sample() (replay_sampling.cc).
  bool run_clock_wanted_ = false;
  uint32_t run_clock_tid_ = 0;  // the thread it measures
  std::unique_ptr<TimeSampler> run_clock_;
  uint64_t time_sample_after_ = 0;
  std::unique_ptr<TimeSampler> time_sample_;
  Task* sampled_task_ = nullptr;  // the task time_sample_ is on
  void close_time_sample();
  void open_samplers_for_run();
  bool time_sample_reached();
  bool time_sample_reached(const siginfo_t& si);
  std::vector<Watchpoint> armed_;  // what the debug registers hold now
  std::vector<std::size_t> slot_owner_;  // debug register -> index in armed_
  SharedObjects shared_;           // memfds behind MAP_SHARED mappings
  CommFiles comm_files_;           // descriptors of threads' comm files (thread names)
  uint64_t position_digests_ = 0;  // digests computed looking for a Position
  // When the search for the current Position began (give_up_search()).
  std::chrono::steady_clock::time_point position_search_started_{};
  std::function<bool()> interrupt_poll_;  // the current resume()'s Resume::interrupted
  std::chrono::milliseconds poll_period_{20};  // and its Resume::poll_period
  // The program's threads, by recorded tid. Each is a process of its own
  // here that shares the address space (CLONE_VM without CLONE_THREAD), so
  // the kernel never does thread-exit work replay has not asked for.
  struct ReplayThread {
    Task* task = nullptr;
    bool at_entry = false;             // stopped at a syscall entry (SyscallEntered replayed)
    bool breakpoint_reported = false;  // its breakpoint_reported_, while another thread runs
    bool debug_registers_set = false;  // armed for watchpoints at some point
    // Its last call returned a restart code: the registers as the kernel
    // backs them up, unless its next event delivers a signal.
    std::optional<Registers> restart;
    uint64_t started = 0;              // its ThreadStart event (0: the exec's thread)
    std::string name;                  // PR_SET_NAME; empty: the program's name
    uint32_t pid = 0;                  // its process, as recorded
    // Whose memory it uses: its process's, or, for a vfork child before it
    // execs, its creator's (CLONE_VM).
    uint32_t space = 0;
    // Its syscall buffer (preload/): registered by it, or its creator's.
    uint64_t buffer = 0;
  };
  std::map<uint32_t, ReplayThread> threads_;
  // A buffered call the preload library found different from its record
  // (it wrote why into the thread's buffer and trapped): the report, or
  // empty when the trap is not that.
  // At a position whose state replay takes from the trace: the thread's
  // buffered calls since its last event ran before it, so the records of
  // its last flush are consumed as the library would have (the buffer is
  // no part of the stored state).
  void consume_buffered_records();
  std::string buffered_call_divergence();
  // After a Syscall event's memory writes: where they patched a syscall
  // site, the other threads of the address space that stand right after
  // its `syscall` (their call returned; their next event comes later) go
  // on from the same point of the stub, as the recorder moved them or as
  // they went on when recorded (replay_buffers.cc).
  void patched_sites(const trace::Event& event);
  // The memory an event wrote, written into `task`'s address space.
  static void write_memory(Task& task, const trace::Event& event);
  // At a BS_CALL_REGISTER_BUFFER call (replay_buffers.cc).
  void registered_buffer(const Registers& call, int64_t result);
  uint32_t current_tid_ = 0;
  // The processes of the tree that exist at this point, by recorded pid;
  // the one debugged (the first, unless set_debuggee); the first one's exit
  // status, once it has exited while others went on.
  std::set<uint32_t> processes_;
  std::map<uint32_t, uint64_t> images_;  // pid -> image() of its program
  std::map<uint32_t, std::shared_ptr<const trace::Event>> execs_;  // by pid: its program's Exec
  uint32_t debuggee_ = 0;
  // Each process's latest stored state, whole (follow_stored_state()), with
  // the Exec of the program it belongs to: images are shared, never
  // changed, so that the copies made for checkpoints cost nothing.
  struct HeldState {
    std::shared_ptr<const trace::StateImage> image;
    std::shared_ptr<const trace::Event> exec;
  };
  std::map<uint32_t, HeldState> stored_states_;
  uint32_t last_tid_ = 0;
  Birth last_birth_;  // last_birth()
  std::optional<int> root_status_;
};

// A Syscall event of a call through the vsyscall page (engine/core/vsyscall.h).
bool is_vsyscall_event(const trace::Event& e);

}  // namespace backstep
