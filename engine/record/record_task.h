// One recorded thread: its ptrace handle and what the recorder keeps per
// thread. A recording has one today; with threads (issue 8) each thread gets
// its own, and RecordSession hands every stop to the RecordTask of the thread
// that stopped.
#pragma once

#include <signal.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/counting_stub.h"
#include "values/registers.h"
#include "engine/core/state_digest.h"
#include "engine/core/task.h"
#include "engine/record/buffer_view.h"
#include "engine/record/syscall_context.h"
#include "preload/preload_interface.h"

namespace backstep {

// Where a thread is, for the recorder's scheduler (record_threads.cc): one
// thread at a time runs user code (Running); the others sit at a ptrace stop
// (Stopped, possibly with a status the kernel reported while another thread
// ran: Task::keep_status), or in a system call that may block (InKernel).
enum class RunState { Stopped, Running, InKernel, Gone };

// One recorded process (thread group): what the recorder keeps per process
// of the tree. Its tasks point at it.
struct RecordProcess {
  pid_t pid = 0;        // its thread-group id, as recorded
  pid_t parent = 0;     // the process that created it (0: the recording's first)
  // exit_group or a fatal signal: each of its threads is on its way out,
  // and none is scheduled again.
  bool exiting = false;
  // Its Exit event has been written.
  bool ended = false;
  // The preload library's stub area and trampoline, from the first buffer a
  // thread of it registered (record_buffers.cc); 0 until then. A fork's
  // child inherits them with the address space; an exec forgets them.
  uint64_t stub_area = 0, stub_area_size = 0, trampoline = 0;
  // The library's code (the mapping that holds the trampoline, its stub
  // area included), from the same registration: replay runs other code
  // there than recording did, so no position is named inside it.
  uint64_t library_code = 0, library_code_end = 0;
  bool in_library_code(uint64_t ip) const { return ip >= library_code && ip < library_code_end; }
  // The stub area the recorder mapped below the executable at its exec
  // (BS_STUB_AREA_SIZE bytes; 0: none), for sites in the executable.
  uint64_t exe_stub_area = 0;
  // Whether `ip` lies in one of the stub areas.
  bool in_stub_area(uint64_t ip) const {
    return (stub_area && ip >= stub_area && ip < stub_area + stub_area_size) ||
           (exe_stub_area && ip >= exe_stub_area && ip < exe_stub_area + BS_STUB_AREA_SIZE);
  }
  // The program installed a seccomp filter of its own, or asked for strict
  // mode (emulated): inherited by its children, kept across exec.
  bool own_filter = false;
  bool strict = false;
  // It asked for MADV_WIPEONFORK or MADV_DONTFORK somewhere (or inherited
  // such memory): its forks' children are not plain copies, and which
  // ranges differ is read at each fork (record_processes.cc). An exec
  // clears it, as it clears those flags.
  bool fork_sensitive = false;
  // Its code mapped privately from files (where syscall sites may be
  // patched), read from /proc/PID/maps when first needed and forgotten at
  // every call that changes mappings (record_buffers.cc).
  struct CodeRange {
    uint64_t start = 0, end = 0;
  };
  std::vector<CodeRange> patchable_code;
  bool patchable_code_known = false;
  // The sites the recorder patched (site_stubs.cc): the jump it wrote and
  // the bytes that jump replaced, so that the search for jumps into a site
  // about to be patched reads the program's own code where a patch is, not
  // the patch's displacement bytes. A fork's child inherits them; an exec
  // forgets them.
  struct PatchedSite {
    uint64_t site = 0;
    std::vector<uint8_t> patch, original;
  };
  std::vector<PatchedSite> patched_sites;
  // The recorder's views of its threads' syscall buffers, by address
  // (buffer_view.h): gone at exec, at its end, and where the program maps
  // over one.
  std::map<uint64_t, std::unique_ptr<BufferView>> buffer_views;
  // The state stored with its last forced position that stored one
  // (forced_position.cc): the hashes of its pages, that Position event's
  // number, and how many incremental states followed the last full one.
  // The next state stores only the pages that differ. A fork's child
  // starts without (its first state is full); an exec forgets it.
  struct StoredPages {
    std::vector<PageHash> hashes;
    uint64_t event = 0;
    int incremental = 0;
  };
  std::optional<StoredPages> stored_pages;
  // Its parent reaped it: a wait4 or waitid of the parent returned its
  // exit (ptrace_waits.cc), so a wait can no longer report it.
  bool reaped = false;
  // Its SIGCHLD action has SA_NOCLDSTOP: no SIGCHLD for its tracees' stops
  // (record_tracees.cc).
  bool sigchld_nocldstop = false;
};

struct RecordTask {
  explicit RecordTask(Task& t) : task(t) {}
  RecordTask(const RecordTask&) = delete;
  RecordTask& operator=(const RecordTask&) = delete;

  Task& task;
  pid_t tid() const { return task.tid(); }
  // The process it belongs to (RecordSession::processes_).
  RecordProcess* process = nullptr;
  bool is_leader() const { return process && process->pid == task.tid(); }

  // An execve in progress: what it was asked to run (read at its entry,
  // before the exec replaces the memory holding it), for the Exec event.
  std::string exec_path;
  std::vector<std::string> exec_argv;
  // The Exec event was written at PTRACE_EVENT_EXEC: a syscall-exit stop of
  // the execve, should one follow, records nothing.
  bool exec_done = false;
  // Its ThreadExit event has been written.
  bool end_written = false;

  // The system call between its entry and exit stops.
  std::optional<SyscallContext> in_syscall;
  // The task its clone, fork or vfork made, as backstep names it (from the
  // PTRACE_EVENT stop before the call's exit): the call's result is its id
  // in the caller's pid namespace, which differs after unshare(CLONE_NEWPID).
  pid_t created_child = 0;
  // The thread asked for rdtsc to fault (prctl PR_SET_TSC, PR_TSC_SIGSEGV),
  // which the recorder's own trap already makes it do: its rdtsc then
  // raises the program's SIGSEGV instead of being answered. A per-thread
  // flag, inherited by the threads and processes it creates.
  bool tsc_faults = false;
  // Registers after the last event, and whether the thread still stands
  // right there (no user instruction since): a signal can be delivered at
  // such a boundary without a counter.
  Registers last_exit_regs;
  bool at_syscall_boundary = false;
  // That boundary is the exit of rt_sigreturn: a handler just returned.
  bool boundary_after_sigreturn = false;
  // The thread stands at an event boundary with these registers.
  void reached_boundary(const Registers& regs, bool after_sigreturn = false) {
    last_exit_regs = regs;
    at_syscall_boundary = true;
    boundary_after_sigreturn = after_sigreturn;
  }
  // Entry registers of a sleep interrupted with ERESTART_RESTARTBLOCK.
  std::optional<Registers> interrupted_entry;
  // Signals that came while user code ran, held back until the next
  // boundary; and those re-raised at one, not yet seen again.
  std::vector<siginfo_t> deferred_signals;
  std::vector<siginfo_t> redelivering;
  // A signal is held back: from force_at_ns (steady clock) on, the recorder
  // interrupts the thread to force a position (forced_position.cc).
  bool force_wanted = false;
  uint64_t force_at_ns = 0;
  // PTRACE_INTERRUPT sent (when: steady clock, ns), its PTRACE_EVENT_STOP
  // not seen yet.
  bool interrupt_pending = false;
  uint64_t interrupt_sent_ns = 0;
  // PTRACE_INTERRUPT sent because the thread waits in a buffered call
  // (check_blocked_call); cleared at its next stop, whatever it is.
  bool desched_pending = false;
  uint64_t desched_sent_ns = 0;

  RunState run = RunState::Stopped;
  // When the scheduler last let it run (steady clock, ns), and whether the
  // recorder has looked since then for a spin (forced_position.cc).
  uint64_t since_ns = 0;
  bool probed = false;
  // record --chaos (chaos_schedule.h): this slice's length (0: the
  // recorder's usual), and until when the scheduler passes it over.
  uint64_t slice_ns = 0;
  uint64_t starved_until_ns = 0;
  // Handed over while spinning in a loop that changes nothing (a fixpoint):
  // the state digest then. Until the program's state differs from it, the
  // thread would only spin again, so the scheduler passes it over.
  std::optional<uint64_t> spin_digest;
  // Counted hand-overs (counted_handover.cc): the instruction where the
  // thread was last handed over at a position, whose arrivals are counted
  // from the start of its next slice, and the stub that counts them while
  // it runs.
  std::optional<uint64_t> count_site;
  std::optional<CountingStub> handover_count;
  // A stub whose code is back but whose pages are still mapped: counting
  // ended at a stop where no system call could be injected (a signal's),
  // and the pages go at the thread's next stop that allows one.
  std::optional<CountingStub> parked_count;
  // Slices in a row whose count ended before a hand-over used it.
  int count_misses = 0;
  // The word the kernel zeroes when the thread ends (CLONE_CHILD_CLEARTID,
  // set_tid_address), 0 for none.
  uint64_t clear_child_tid = 0;
  // Its robust futex list head (set_robust_list), 0 for none: the kernel
  // marks the mutexes on it that the thread still holds as it dies.
  uint64_t robust_list = 0;
  // Its syscall buffer (preload/preload_interface.h), 0 for none: registered
  // by the thread, or inherited from its creator (a fork's child has a copy
  // of its parent's at the same address; a thread that shares its
  // creator's TLS shares its buffer).
  uint64_t buffer = 0;
  // When the recorder asked its library to yield (steady clock, ns; 0: not
  // asked since its last stop).
  uint64_t yield_asked_ns = 0;
  // ptrace emulation (ptrace_emulation.h, record_tracees.cc). It stands
  // at the real signal-delivery stop of this signal, of which its tracer
  // was told instead of the signal being delivered:
  std::optional<siginfo_t> trace_stop_signal;
  // ... at an event boundary or a fault that recurs where replay runs: a
  // signal can be delivered there (not at a single step's trap).
  bool trace_stop_deliverable = true;
  // PTRACE_SINGLESTEP: it runs one instruction and stops with SIGTRAP;
  // with trace_block (PTRACE_SINGLEBLOCK), up to a taken branch, as the
  // CPU steps the real thread.
  bool trace_step = false;
  bool trace_block = false;
  // Its tracer has seen the entry of the call it stands at (a system-call
  // stop, PTRACE_SYSCALL): the stop, kept, is handled as a call's entry
  // when it runs again.
  // Bits: kShownEntry (its system-call stop), kShownExit (PTRACE_EVENT_EXIT
  // at an exit or exit_group).
  static constexpr uint8_t kShownEntry = 1, kShownExit = 2;
  uint8_t entry_shown = 0;
  // Where its emulated stop is, for its tracer's changes (TraceeChange
  // events, record_tracees.cc): an event to write before the first change
  // (a Position after a single step, a Signal with no effect at a fault),
  // or why no change can be recorded there (nullptr: the stop is at its
  // previous event); and whether its tracer changed it there.
  std::optional<trace::Event> stop_mark;
  const char* stop_inexact = nullptr;
  bool stop_changed = false;
  // After an event stop at a call's exit (a fork's, an exec's): the
  // system-call stop of that exit comes next, when its tracer lets it go.
  bool exit_stop_pending = false;
  // The SyscallEntered event of the call it stands at the entry of went
  // into the trace (its tracer changed it there): that call's context
  // takes it over (SyscallContext::entered_written).
  bool entered_written = false;
  // Debug registers its tracer armed (tracer_debug_registers.h): DR7
  // enables one on the real thread; or the values written while it was in
  // no stop of the recorder's, set at its next stop.
  bool debug_armed = false;
  std::optional<std::array<uint64_t, 8>> debug_deferred;
  // the signal its tracer gave to PTRACE_CONT or PTRACE_DETACH, delivered
  // when it next runs; and one raised for that, delivered without a stop:
  std::optional<siginfo_t> tracer_signal;
  int injected_signal = 0;
  // A wait of its for emulated tracees, held at the call's entry until one
  // of them stops or a child dies (ptrace_waits.cc).
  bool held_wait = false;
};

}  // namespace backstep
