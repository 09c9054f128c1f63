// Records one program: starts it under ptrace, logs every event into a trace.
#pragma once

#include <sys/stat.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/cpuid_table.h"
#include "engine/core/proc_maps.h"
#include "engine/core/session.h"
#include "engine/core/syscall_stub.h"
#include "engine/record/chaos_schedule.h"
#include "engine/record/disguise.h"
#include "engine/record/mapped_file_sizes.h"
#include "engine/record/ptrace_emulation.h"
#include "engine/record/record_task.h"
#include "engine/record/descriptor_cache.h"
#include "engine/record/recorder_signals.h"
#include "engine/record/syscall_context.h"
#include "engine/record/site_patching.h"
#include "engine/trace/writer.h"

namespace backstep {

// A signal sent to the recorder alone asked it to stop.
class RecorderStopped : public std::runtime_error {
 public:
  RecorderStopped(int sig, const std::string& what) : std::runtime_error(what), signo(sig) {}
  int signo;
};

struct RecordOptions {
  std::string exe;                 // resolved path of the program
  std::vector<std::string> argv;   // argv[0] as the user typed it
  std::vector<std::string> envp;
  std::string trace_dir;           // must not exist yet
  trace::Codec codec = trace::Codec::Zstd;
  // Make every cpuid trap and answer it (core/cpuid_trap.h): RDRAND, RDSEED
  // and TSX hidden, so programs that use them when present replay. Off by
  // default: the kernel switches the faulting state at every context
  // switch, which in a VM costs a hypervisor exit, and a recorder switches
  // at every event (3-4x slower recording and replay of system calls here).
  bool cpuid_faulting = false;
  // In-process syscall buffering (preload/, record_buffers.cc): the preload
  // library to inject, empty for none (every call is then a ptrace stop).
  std::string preload_library;
  // record --chaos: random scheduling decisions from this seed
  // (chaos_schedule.h); stored in the trace's header.
  std::optional<uint64_t> chaos_seed;
};

struct RecordResult {
  int exit_status = 0;            // as a shell reports it: code, or 128+signal
  bool completed = false;         // false: the recording stopped early
  std::string stop_reason;        // why, when !completed
  int stop_signal = 0;            // when a signal sent to the recorder stopped it
  uint64_t events = 0;
  uint64_t forced_positions = 0;  // Position events written (forced_position.cc)
  uint64_t counted_positions = 0; // ... of which counted (counted_handover.cc)
};

class RecordSession : public Session {
 public:
  explicit RecordSession(RecordOptions options);
  ~RecordSession() override;

  // Runs the program to the end (or until the recording must stop) and
  // finishes the trace. Throws std::runtime_error if the program cannot be
  // started (the message says why). While it runs, the process's signal
  // handling is the recorder's (see recorder_signals.h); the program starts
  // with the dispositions and mask that were in force when run() was called.
  RecordResult run();

  trace::TraceWriter& writer() { return *writer_; }
  // 1 or 2 when `fd` in the tracee is the same file as backstep's own stdout
  // or stderr (then its output is re-emitted by replay there).
  std::optional<int> stdio_stream(Task& task, int fd) { return descriptors_.stdio_stream(task.tid(), fd); }
  DescriptorCache& descriptors() { return descriptors_; }
  // Syscall buffering (record_buffers.cc), for the calls that change
  // descriptors or mappings:
  // Clears descriptors [lo, hi] in the buffers of `t`'s process (they were
  // closed or replaced), as memory `ctx`'s event wrote.
  void disallow_descriptors(RecordTask& t, SyscallContext& ctx, int lo, int hi);
  // A file is mapped MAP_SHARED now: writes to it must be recorded into its
  // shared object, so no descriptor of the calling process is buffered on
  // until the recorder looks again.
  void forget_buffered_files(SyscallContext& ctx);
  // ... and in the other processes of the tree, the descriptors of that
  // file (dev, ino): their buffered writes would not reach the mapping.
  void forget_buffered_file_elsewhere(SyscallContext& ctx, dev_t dev, ino_t ino);
  // The program's own seccomp use under the recorder's filter
  // (program_seccomp.cc). A filter of its own: its process stops buffering
  // and its tasks stop at every call's entry, so that the program's
  // filter acts on each call as natively. Strict mode, which the kernel
  // refuses on top of a filter, is emulated: the call is skipped and
  // answers 0 (`skip_strict` at entry, `strict_entered` at exit), and
  // from then on any call but read, write, exit and rt_sigreturn kills the
  // process with SIGKILL. PR_GET_SECCOMP answers as if the recorder's
  // filter were not there.
  void program_filter_installed(SyscallContext& ctx);
  void skip_strict(SyscallContext& ctx);
  void strict_entered(SyscallContext& ctx);
  // Writes what the library needs to answer a patched rdtsc into the
  // thread's buffer header: the clock's terms (tsc_clock.h) and whether the
  // thread made rdtsc fault for itself (tsc_buffering.cc).
  void publish_tsc_rules(RecordTask& t);
  void disguise_seccomp_mode(SyscallContext& ctx);

  // MAP_SHARED mappings of files: the kernel changes their memory when the
  // program writes the file with write(2) and friends, so such writes are
  // recorded as memory writes too (see fs_syscalls.cc).
  struct SharedFileMapping {
    uint64_t start = 0, end = 0, offset = 0;
    dev_t dev = 0;
    ino_t ino = 0;
  };
  // Kept per process (`task`'s): a fork's child starts with a copy of its
  // parent's, an exec with none.
  // The file also enters every library's kept_out filter (buffer_gates.cc).
  void track_shared_mapping(Task& task, const SharedFileMapping& m) {
    shared_maps_[process_of(task)].push_back(m);
    keep_out_of_gates(m.dev, m.ino);
  }
  void forget_mappings(Task& task, uint64_t start, uint64_t len);
  // A call of `task` unmapped or mapped over [start, start + len): the
  // views of syscall buffers there end (buffer_view.h). With `zeroed`
  // (MADV_DONTNEED), the memory stays and reads as zeros, as private
  // memory would.
  void buffer_memory_changed(Task& task, uint64_t start, uint64_t len, bool zeroed);
  const std::vector<SharedFileMapping>& shared_mappings(Task& task) { return shared_maps_[process_of(task)]; }
  // The shared object of file (dev, ino) if some process of the tree maps
  // it now (fs_syscalls.cc records writes into it).
  std::optional<uint64_t> mapped_object(dev_t dev, ino_t ino);
  // The trace's number for a file mapped MAP_SHARED (Mapping::shared_object):
  // the same for every mapping of the file, so replay makes them alias.
  uint64_t shared_object_id(dev_t dev, ino_t ino);
  // Their sizes, noted on every event that changes one (mm_syscalls.cc).
  MappedFileSizes& mapped_file_sizes() { return mapped_file_sizes_; }
  // The rdtsc, RDRAND, RDSEED and cpuid sites patched to trap (site_patching.h).
  SitePatcher& site_patcher() { return site_patcher_; }

  // What the recorder changed about the process (persona, CPU affinity)
  // and what the program inherited (disguise.h).
  RecorderDisguise& disguise() { return disguise_; }

  // The recorder's signal handling, while run() runs.
  RecorderSignals& recorder_signals() { return *signals_; }

  // The recorder's state for thread `tid`, or nullptr.
  // ptrace between recorded tasks (ptrace_emulation.h).
  PtraceEmulation& ptrace_emulation() { return ptrace_; }
  // Before a tracer reads another thread's state: the calls other threads
  // finished in the kernel get their events (and the recorder's changes to
  // their results) first.
  void settle_other_threads(RecordTask& running) {
    if (live_threads() > 1) flush_completed_calls(running);
  }

  // Decides again every wait held for emulated tracees (ptrace_waits.cc):
  // after a tracee stopped, was let go or died, and after a process ended.
  void wake_tracers();
  // The tracer of `tid` learns of its stop or death (wait status
  // `status`): SIGCHLD, as the kernel sends it (CLD_STOPPED for the
  // kernel's STOP traps: `job_control`).
  void notify_tracer(const EmulatedTracee& tracee, pid_t tid, int status, bool job_control = false);
  // Every call of `t` takes the traced path (its tracer wants to see each,
  // PTRACE_SYSCALL): the buffer's `traced` word (record_tracees.cc).
  void set_traced_calls(RecordTask& t, bool on);
  // Before a recorded tracer changes `t` (its memory or registers) at its
  // emulated stop: the stop's position goes into the trace if it is not
  // there yet; false, with why in `why`, where it cannot be.
  bool before_tracee_change(RecordTask& t, std::string& why);
  // A call of the running thread wrote `ranges` (address, length) into the
  // memory of recorded process `pid`, another one (/proc/PID/mem,
  // process_vm_writev): recorded as a TraceeChange of one of its threads,
  // or the recording ends after the call where it cannot be.
  void record_write_into(SyscallContext& ctx, pid_t pid, const std::vector<std::pair<uint64_t, uint64_t>>& ranges);
  // The change itself, as a TraceeChange event of `t`: memory, and its
  // registers or its whole XSAVE area where the tracer changed them.
  void record_tracee_change(RecordTask& t, std::vector<trace::MemoryWrite> writes,
                            std::optional<Registers> regs, std::vector<uint8_t> xstate = {});
  const std::map<pid_t, std::unique_ptr<RecordProcess>>& processes() const { return processes_; }

  RecordTask* record_task(pid_t tid) {
    auto it = record_tasks_.find(tid);
    return it == record_tasks_.end() ? nullptr : it->second.get();
  }
  // At the exit of a clone, fork or vfork that made task `child`
  // (thread_syscalls.cc): its ThreadStart or ProcessStart event follows the
  // call's event. `flags` are the clone flags (fork: SIGCHLD); the tid
  // addresses are clone's parent_tid and child_tid arguments.
  void thread_created(SyscallContext& ctx, pid_t child, uint64_t flags, uint64_t parent_tid_addr,
                      uint64_t child_tid_addr);

  // Where the next recorded event will be numbered (for messages).
  uint64_t next_event() const { return writer_ ? writer_->events_written() : 0; }

 private:
  pid_t spawn();
  // The Exec event of `task`'s exec of `path` with `argv` (both empty for
  // the first one, which the header describes), made by thread `caller`
  // (0: task itself; another thread of the process that took its id).
  // Returns the executable's stub area (install_executable_stub_area), 0
  // for none, and the sites it patched into jumps to stubs (the loader's
  // cpuid, answer_loader_cpuid).
  struct ExecSetup {
    uint64_t exe_stub_area = 0;
    std::vector<RecordProcess::PatchedSite> patched_sites;
  };
  ExecSetup record_exec(Task& task, const std::string& path = {}, const std::vector<std::string>& argv = {},
                        uint32_t caller = 0);
  // At an exec, before its event is written: the cpuid sites of the file
  // the program starts in become stubs answering from cpuid_answers_
  // (loader_cpuid.cc); the area goes into `exec`'s mappings and every
  // byte written into its writes.
  void answer_loader_cpuid(Task& task, trace::Event& exec, std::vector<RecordProcess::PatchedSite>& patched);
  void on_syscall_entry(RecordTask& t);
  // A call through the vsyscall page, at its seccomp stop (vsyscall_call.cc).
  void on_vsyscall(RecordTask& t, const Registers& regs);
  // A call of a process in emulated strict mode that strict mode forbids.
  bool strict_forbids(RecordTask& t, long nr);
  void enter_syscall(RecordTask& t, const Registers& regs);
  // `resume`: let the thread go on (or hand over); false leaves it stopped
  // at the exit (flush_completed_calls).
  void on_syscall_exit(RecordTask& t, bool resume = true);
  void on_signal(RecordTask& t, int sig);
  void deliver_to_handler(RecordTask& t, const siginfo_t& info, const Registers& before);
  void redeliver_deferred(RecordTask& t);
  // Raises `info`'s signal to `t` itself; on_signal gives the program
  // `info` when it comes.
  void raise_with_info(RecordTask& t, const siginfo_t& info);
  // Keeps an asynchronous signal that came while user code ran for the
  // next event boundary (a standard one merges with a copy held already).
  void hold_back_signal(RecordTask& t, const siginfo_t& info);
  // One stop of the program; returns true when the program has ended.
  bool handle_stop(RecordTask& t, const WaitStatus& ws);
  // Forced positions (forced_position.cc).
  void want_forced_position(RecordTask& t);
  void cancel_forced_position(RecordTask& t);
  void maybe_interrupt(RecordTask& t);
  bool on_interrupted(RecordTask& t);
  // One pass of on_interrupted()'s probe: the thread runs until it is back
  // at `start` (a debug register; `looped`), or is interrupted where it is
  // after kPassLimit, or stops otherwise (`handled`: that stop was handled,
  // or the thread was let go on, with this result for on_interrupted()).
  struct PassEnd {
    bool looped = false;
    std::optional<bool> handled;
  };
  PassEnd run_pass(RecordTask& t, const Registers& start);
  std::optional<WaitStatus> wait_with_deadline(Task& task, std::chrono::steady_clock::time_point deadline);
  // Counted hand-overs (counted_handover.cc): counting starts as the
  // scheduler lets a thread run, and ends at its first stop other than the
  // recorder's interrupt; at an interrupt, the position is taken at the
  // next counted arrival if one comes soon (nullopt: it did not; the
  // counting is over and a digest position is wanted there).
  // `probe`: early in the slice, hand over only a thread that spins.
  void start_handover_count(RecordTask& t);
  void end_handover_count(RecordTask& t);
  std::optional<bool> counted_handover(RecordTask& t, bool signal, bool probe);
  // Whether hand-overs are counted (BACKSTEP_COUNTED_HANDOVERS=0: never).
  static bool counting_enabled();
  // Makes `ip` the thread's count site if a stub can count there; false
  // if not (code made at run time, code that cannot move).
  bool remember_count_site(RecordTask& t, uint64_t ip);
  // Whether a stub could count arrivals at `ip` (file-backed code, not the
  // preload library's, that can move), with the process's maps at hand.
  bool count_site_possible(RecordTask& t, uint64_t ip, const std::vector<MapsEntry>& maps);
  // Before a hand-over's digest position (count_site_search.cc): single
  // steps to a count site where the registers differ from the previous
  // pass's (`distinct`: found; the position needs no stored state).
  // `stopped`: a stop that was not a step came and was handled, with this
  // result for on_interrupted().
  struct SiteSearch {
    std::optional<bool> stopped;
    bool distinct = false;
  };
  SiteSearch search_count_site(RecordTask& t);
  // One single step of that search (nullopt: done, the thread stopped
  // after it).
  std::optional<bool> step_for_position(RecordTask& t);
  // At each stop of a thread that counts or has a stub's pages to unmap:
  // ends the count unless the stop is the recorder's interrupt or a signal
  // to hold back, and unmaps where a call can be injected. A status comes
  // back where the thread was wound back to make its system call again.
  std::optional<WaitStatus> settle_handover_count(RecordTask& t, const WaitStatus& ws);
  // After a Position event: the held-back signals go out there, or another
  // thread gets the CPU (`spin`: the digest of a state it spins in).
  bool hand_over_at_position(RecordTask& t, const Registers& here, bool signal, std::optional<uint64_t> spin);
  void write_event(const trace::Event& event, std::span<const trace::BorrowedWrite> first = {});
  // How often the recorder looks at a thread that runs user code while a
  // signal is held back or another thread waits.
  static constexpr long kTickMs = 2;
  // How long an interrupt may go without its stop before it is sent again.
  static constexpr uint64_t kInterruptAgainNs = 50'000'000;
  // How long a write to backstep's own stdout/stderr may take before the
  // recorder counts it as blocked and lets other tasks run.
  static constexpr long kEchoWaitMs = 5;
  bool writes_original_stdio(Task& task, const Registers& call);
  // Syscall buffering (record_buffers.cc).
  bool buffering() const { return !options_.preload_library.empty(); }
  // At the exit of BS_CALL_REGISTER_BUFFER: accepts the thread's buffer.
  void register_buffer(RecordTask& t, SyscallContext& ctx);
  // Writes the calls `t` buffered since its last event as a BufferFlush
  // event, and empties its buffer.
  void flush_buffer(RecordTask& t);
  // The recorder's view of `t`'s buffer (buffer_view.h), null for none.
  BufferView* buffer_view(RecordTask& t);
  // A fork's child (t, stopped at its first instruction, of a process that
  // has just been created without CLONE_VM): its copies of the parent's
  // buffers become its own, with views of their own (buffer_view.h).
  void unshare_buffers(RecordTask& t, RecordProcess& parent);

  // The descriptors `t`'s buffered calls closed: gone from the other
  // buffers of its process (as writes of `flush`) and from the cache.
  void forget_closed(RecordTask& t, const std::vector<int>& closed, trace::Event& flush);
  // Clears descriptors [lo, hi] (those `drop` selects, when given) in every
  // buffer of `t`'s process but `except`; returns the words it wrote (for
  // the event that says so).
  std::vector<trace::MemoryWrite> clear_descriptor_bits(RecordTask& t, int lo, int hi, uint64_t except,
                                                        const std::function<bool(int fd)>& drop = {});
  // One live task for each buffer in use by tasks `keep` selects, with the
  // buffer's address.
  std::vector<std::pair<RecordTask*, uint64_t>> live_buffers(const std::function<bool(const RecordTask&)>& keep);
  // Clears both bitmaps' bits of descriptors [lo, hi] that `drop` selects
  // (all when empty) in `buffer` of `owner`'s process; returns the words it
  // wrote.
  std::vector<trace::MemoryWrite> clear_buffer_bits(RecordTask& owner, uint64_t buffer, int lo, int hi,
                                                    const std::function<bool(int fd)>& drop);
  // At a traced call's exit: patches its `syscall` instruction to jump to
  // the library, and allows buffering on the call's descriptor.
  void after_traced_call(RecordTask& t, SyscallContext& ctx);
  void patch_site(RecordTask& t, SyscallContext& ctx);
  // No other thread of `t`'s process stands inside the bytes a patch at
  // `site` would replace.
  // Writes a stub for `plan` that enters the library at `entry` and the
  // jump to it over the site, and moves other threads out of the site;
  // `written` gets the (address, length) of each write. The stub goes in
  // the library's area, or, where the site is out of its reach (the
  // executable's code), in the executable's (tool_page.h). nullopt where
  // the site cannot be patched (not private file code, a jump may land
  // inside, a thread stands in it, no slot left, out of reach).
  std::optional<uint64_t> install_stub(RecordTask& t, const syscall_stub::Plan& plan, syscall_stub::StubEntry entry,
                                       std::vector<std::pair<uint64_t, std::size_t>>& written);
  // At the trap of a patched rdtsc (already emulated into `after`): makes
  // the site a jump to a stub through which the preload library reads the
  // counter from now on, adding the writes to `event` and moving `after`
  // into the stub. False where it cannot (tsc_buffering.cc).
  bool buffer_tsc_site(RecordTask& t, Registers& after, trace::Event& event);
  bool site_idle(RecordTask& t, const syscall_stub::Plan& plan);
  void move_out_of_site(RecordTask& t, const bs_stub_info& info, uint64_t stub);
  // A thread stopped for its turn, with nothing pending: its registers
  // may change before it runs.
  bool movable(RecordTask& other);
  void allow_descriptor(RecordTask& t, SyscallContext& ctx, int fd);
  // What the library needs to gate the descriptors its buffered opens
  // create (preload_interface.h, gate_opens): written into `t`'s buffer at
  // its registration, and into a fork child's copy. Not recorded: replay
  // takes the decisions from the records.
  void publish_gate_rules(RecordTask& t);
  // File (dev, ino) is mapped: its descriptors stay out of the gates, in
  // the filter of every library (kept_out_, and each live buffer's copy).
  void keep_out_of_gates(dev_t dev, ino_t ino);
  void start_kept_out();  // kept_out_ with our stdout and stderr, once
  // Before the handlers of `t`'s traced call look at descriptors: those its
  // library closed since its last event may be open again under the same
  // numbers (a buffered openat), so the cache forgets the process's.
  void forget_buffered_closes(RecordTask& t);
  // Whether `t` is inside the library's handling of a call: no position
  // can be named there.
  bool in_buffered_call(RecordTask& t);
  // Asks `t`'s library to take the traced path at its next bufferable call
  // (a switch point), rather than buffer it.
  void request_yield(RecordTask& t);
  // Buffered calls that block (record_desched.cc). While `t` runs: if it
  // waits in the library's untraced call (its desched event woke us, or a
  // tick did), interrupt it, so that the call goes the traced way.
  void check_blocked_call(RecordTask& t);
  // At a stop of `t` right after the untraced call was interrupted (our
  // interrupt, a signal), or failed raising `signal` (SIGPIPE): its result
  // becomes BS_RESULT_ABANDONED, and the library makes the call again on
  // the traced path. Says why it did (RaisesSignal: drop `signal`, the
  // traced call raises it again).
  enum class Abandoned { No, Interrupted, RaisesSignal };
  Abandoned abandon_interrupted_call(RecordTask& t, const siginfo_t* signal = nullptr);
  // ptrace emulation (record_tracees.cc). A held call waits at its entry
  // (SyscallEntered written, as for a call that blocks).
  void hold_call(RecordTask& t);
  // A traced thread meets signal `info` at a boundary: it stops for its
  // tracer instead (true), or the signal is one its tracer gave, delivered
  // as usual (false).
  // `at_boundary`: it stands at an event boundary (else at a fault or a
  // single step's trap, in user code).
  bool stop_for_tracer(RecordTask& t, const siginfo_t& info, bool at_boundary);
  // After a call of a single-stepped tracee: the trap the kernel sends it
  // once the call returns.
  void raise_step_trap(RecordTask& t, bool into_handler = false);
  // How `t` resumes: one instruction when its tracer single-steps it,
  // else as usual.
  ResumeHow tracee_resume_how(RecordTask& t);
  // A traced thread resumed by its tracer runs again: the signal it was
  // stopped with is dropped or delivered, or the tracer's is raised.
  void resume_traced(RecordTask& t, bool changed);
  // `t` is gone, with wait status `status`: as a tracee, its death waits for
  // its tracer's wait (unless its parent, the tracer, reaps it from the
  // kernel); as a tracer, its tracees are let go, each with the signal it
  // stopped with (the kernel delivers it).
  void let_tracees_go(RecordTask& t, int status);
  // After the exec of a traced thread: the SIGTRAP the kernel sends it.
  void raise_exec_trap(RecordTask& t);
  // System-call stops (PTRACE_SYSCALL): at a call's entry, before the
  // recorder handles it (`ws`, the entry's stop, is kept for when the
  // tracer lets it go on), and after its exit is recorded. True: `t` stopped
  // for its tracer.
  bool stop_at_syscall_entry(RecordTask& t, const WaitStatus& ws);
  bool stop_at_syscall_exit(RecordTask& t);
  // Event stops (the PTRACE_O_TRACE* options). After `t`'s call created
  // task `child` with `flags`: the child is traced too, stopped, and `t`
  // stops with PTRACE_EVENT_FORK, VFORK or CLONE. After `t`'s exec
  // (`former`: the thread that called it): PTRACE_EVENT_EXEC, or the
  // SIGTRAP without the option. True: `t` stopped for its tracer.
  bool trace_created(RecordTask& t, pid_t child, uint64_t flags);
  bool stop_after_exec(RecordTask& t, pid_t former);
  // At the return of `t`'s vfork of `child`: PTRACE_EVENT_VFORK_DONE.
  bool stop_after_vfork(RecordTask& t, pid_t child);
  // An event stop with this PTRACE_EVENT_*, and what PTRACE_GETEVENTMSG
  // then says; a system-call stop.
  void stop_for_event(RecordTask& t, EmulatedTracee& tracee, int event, unsigned long message);
  void syscall_stop(RecordTask& t, EmulatedTracee& tracee, TraceStop kind);
  // The kernel's STOP trap of a traced thread `t`: its process's
  // group-stop (stop signal `sig`), or SIGCONT's notice to a seizing tracer
  // (SIGTRAP). True: `t` stays in that real trap, stopped for its tracer.
  bool stop_for_job_control(RecordTask& t, int sig);
  // Every emulated stop: `t` stops (out of the scheduler) with this wait
  // status for its tracer, who is told.
  void enter_trace_stop(RecordTask& t, EmulatedTracee& tracee, int status, const siginfo_t& info, TraceStop kind);
  // A Signal event of `t` for `info` at registers `regs`, with no effect
  // yet (a delivery adds the frame and the handler's registers).
  static trace::Event signal_event(RecordTask& t, const siginfo_t& info, const Registers& regs);
  // The end of on_signal: `info` is delivered as its action says.
  void deliver_signal(RecordTask& t, const siginfo_t& info, const Registers& regs);
  // Threads (record_threads.cc).
  RecordTask& add_record_task(pid_t tid);
  void start_created_thread();
  // Processes (record_processes.cc).
  struct CreatedThread;
  RecordProcess& add_process(pid_t pid, pid_t parent);
  std::size_t live_processes() const;
  std::size_t live_threads_of(const RecordProcess& p) const;
  void start_created_process(const CreatedThread& c, RecordTask& t);
  void on_vfork_event(RecordTask& t);
  void on_exec_event(RecordTask& t);
  // The first syscall stop after an Exec event: if it is the execve's exit,
  // passes over it and returns true.
  bool after_exec(RecordTask& t);
  // A group-stop (SIGSTOP, SIGTSTP, ... delivered): `t` stays stopped, out
  // of the scheduler, until SIGCONT (or SIGKILL) ends it.
  static bool is_group_stop(const WaitStatus& ws);
  bool on_group_stop(RecordTask& t, int sig);
  // `t` died; returns true when it was the last task of the recording.
  bool on_task_gone(RecordTask& t, const WaitStatus& ws);
  bool exiting(const RecordTask& t) const { return t.process && t.process->exiting; }
  // Lets the next thread run; returns true when the recording has ended.
  // `any`: a spinner whose state nothing changed may run too.
  bool schedule(bool any = false);
  RecordTask* pick_next(bool any);
  bool idle_too_long() const;
  // Whether another thread waits for its turn while `t` runs.
  bool others_waiting(const RecordTask& t) const;
  std::size_t live_threads() const;
  // After `t`'s event: hands the CPU to another thread if `t` had it long
  // enough; else resumes `t`.
  void resume_or_switch(RecordTask& t);
  // `t` entered exit(2): waits for it to die and writes its ThreadExit.
  void end_thread(RecordTask& t);
  void record_robust_futexes(RecordTask& t, trace::Event& event);
  // Routes a status from a wait for any thread; returns true when the
  // recording has ended.
  bool route_status(const TaskStatus& ts);
  // `t` went into a priority-inheritance lock: waits until the kernel has
  // marked the futex word (recorded with `entered`) or the call returned
  // (false: its status is kept, as for any call).
  bool pi_lock_waits(RecordTask& t, uint64_t uaddr, trace::Event& entered);
  // Writes the results of the blocking calls other threads have finished
  // in the kernel, before the running thread's next event.
  void flush_completed_calls(RecordTask& running);
  // The status of a thread that is not the running one.
  bool on_other_status(RecordTask& t, const WaitStatus& ws);
  // `regs`, `caller`: the registers and the thread of a call refused at
  // its entry (or after it), which the Abort event keeps.
  void stop_recording(Task& task, const std::string& why, std::optional<trace::RegBlock> regs = std::nullopt,
                      std::optional<pid_t> caller = std::nullopt);
  // Stop signals (recorder_stop.cc): those sent to the whole process group
  // are the program's; one sent to the recorder alone stops the recording
  // (throws RecorderStopped).
  void check_stop_signals(Task& task);
  void note_program_signal(Task& task, int sig);
  bool program_got(Task& task, const StopSignal& s);

  RecordOptions options_;
  std::unique_ptr<trace::TraceWriter> writer_;
  // Per thread (record_task.h), by tid; per process, by pid.
  std::map<pid_t, std::unique_ptr<RecordTask>> record_tasks_;
  std::map<pid_t, std::unique_ptr<RecordProcess>> processes_;
  // Threads that want a forced position: the recorder's clock ticks while
  // there is one.
  int forcing_tasks_ = 0;
  // The thread that runs user code, if any; the first process (its exit
  // status is the recording's).
  RecordTask* current_ = nullptr;
  RecordProcess* root_ = nullptr;
  pid_t last_scheduled_ = 0;
  uint64_t idle_since_ns_ = 0;  // no thread could be scheduled since (0: one could)
  std::optional<ChaosSchedule> chaos_;  // record --chaos
  // A clone just made this task; its ThreadStart or ProcessStart follows
  // the clone event.
  struct CreatedThread {
    pid_t tid = 0, parent = 0;
    uint64_t flags = 0;
    uint64_t parent_tid_addr = 0, child_tid_addr = 0;
  };
  std::optional<CreatedThread> created_;
  // Statuses of threads the recorder does not know yet (a new thread's first
  // stop can come before its creator's clone returns).
  std::map<pid_t, std::vector<WaitStatus>> early_statuses_;
  DescriptorCache descriptors_;
  int cpu_ = -1;
  RecordResult result_;
  std::map<pid_t, std::vector<SharedFileMapping>> shared_maps_;  // by process
  // Every file any process mapped, and backstep's own stdout and stderr, as
  // the libraries' kept_out Bloom filter (empty until the first buffer).
  std::vector<uint64_t> kept_out_;
  // The recorded process `task` belongs to (its tid if unknown).
  pid_t process_of(Task& task);
  MappedFileSizes mapped_file_sizes_;
  SitePatcher site_patcher_;
  // Every cpuid answer given (cpuid_table.h): the loader's table at each exec.
  CpuidAnswers cpuid_answers_;
  // By file hash: the file offsets a direct jump of the loader's code may
  // land on, sorted (loader_cpuid.cc).
  std::map<uint64_t, std::vector<uint64_t>> loader_jump_targets_;
  PtraceEmulation ptrace_;
  std::map<std::pair<dev_t, ino_t>, uint64_t> shared_objects_;
  RecorderDisguise disguise_;
  std::unique_ptr<RecorderSignals> signals_;
  // Stop signals seen on one side only so far: by the program (at its
  // signal stops) and by the recorder (while the program's copy was still
  // on its way). Matched by signal, si_code and sender.
  std::vector<StopSignal> program_only_, recorder_only_;
};

}  // namespace backstep
