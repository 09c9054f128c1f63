#include "engine/replay/replay_session.h"

#include <atomic>

#include <sched.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <climits>
#include <cstring>
#include <sstream>

#include "engine/core/compat_syscalls.h"
#include "engine/core/cpu_features.h"
#include "values/log.h"
#include "engine/core/signals.h"
#include "engine/core/tool_page.h"
#include "engine/core/vsyscall.h"
#include "engine/core/written_bytes.h"
#include "engine/replay/address_space.h"
#include "engine/replay/replay_stub.h"
#include "engine/core/restart_codes.h"
#include "engine/trace/printable.h"
#include "engine/trace/trace_error.h"
#include "engine/trace/written_data.h"
#include "preload/preload_interface.h"

namespace backstep {
namespace {


// A replay that reached the exit event has not read what follows it; `dump`
// does, and both must agree that a damaged trace is damaged. Reads the rest
// with a reader of its own, so the session's position is untouched. Throws
// TraceError.
void check_after_exit(const std::string& trace_dir, uint64_t exit_event) {
  trace::TraceReader rest(trace_dir);
  // From the exit event itself, so that the reader knows the stream's last
  // event and tells a clean end from a cut one.
  rest.seek(exit_event);
  if (!rest.next()) return;  // read a moment ago: cannot happen
  uint64_t extra = 0;
  while (rest.next()) ++extra;
  std::string events = trace_dir + "/events";
  if (extra != 0)
    throw trace::TraceError(events + ": " + std::to_string(extra) + " events follow the exit event " +
                            std::to_string(exit_event) + ", which should be the last");
  if (rest.truncated())
    throw trace::TraceError(events + ": part of a chunk follows the exit event " + std::to_string(exit_event) +
                            " (the file is damaged)");
}


void pin_to_cpu(int wanted) {
  int cpu = wanted >= 0 && wanted < CPU_SETSIZE ? wanted : sched_getcpu();
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  if (sched_setaffinity(0, sizeof(set), &set) != 0 && wanted >= 0) {
    int here = sched_getcpu();
    CPU_ZERO(&set);
    CPU_SET(here, &set);
    sched_setaffinity(0, sizeof(set), &set);
  }
}

}  // namespace

ReplaySession::ReplaySession(const std::string& trace_dir, ReplayOptions options)
    : reader_(std::make_unique<trace::TraceReader>(trace_dir)),
      trace_dir_(reader_->dir()),
      header_(std::make_shared<const trace::Header>(reader_->header())),
      options_(options) {
  std::string mismatch = cpu_feature_mismatch(header_->cpuid, current_cpu_features());
  if (!mismatch.empty()) {
    throw std::runtime_error(
        "this trace was recorded on a CPU with other features, and without CPUID faulting the "
        "program would see this CPU's; replay refused (" + mismatch + ")");
  }
  std::optional<trace::Event> first = take_event();
  if (!first) throw trace::TraceError(trace_dir_ + "/events: the trace holds no events");
  if (first->kind != trace::EventKind::Exec) {
    throw trace::TraceError(trace_dir_ + "/events: event 0 is " + trace::to_string(first->kind) +
                            ", expected exec");
  }
  exec_ = std::make_shared<const trace::Event>(std::move(*first));
  start();
}

ReplaySession::ReplaySession(const ReplaySession& parent, pid_t child)
    : trace_dir_(parent.trace_dir_),
      header_(parent.header_),
      reader_position_(parent.next_number_ + (parent.peeked_ ? 1 : 0)),
      options_(parent.options_),
      exec_(parent.exec_),
      event_number_(parent.event_number_),
      peeked_(parent.peeked_),
      brk_(parent.brk_),
      stub_areas_(parent.stub_areas_),
      echo_failed_(parent.echo_failed_),
      at_pending_event_(parent.at_pending_event_),
      breakpoint_reported_(parent.breakpoint_reported_),
      last_kind_(parent.last_kind_),
      last_syscall_(parent.last_syscall_),
      last_signal_(parent.last_signal_),
      last_siginfo_(parent.last_siginfo_),
      comm_files_(parent.comm_files_),
      processes_(parent.processes_),
      images_(parent.images_),
      execs_(parent.execs_),
      debuggee_(parent.debuggee_),
      stored_states_(parent.stored_states_),
      last_tid_(parent.last_tid_),
      last_birth_(parent.last_birth_),
      root_status_(parent.root_status_) {
  // The trace reader and /proc/PID/mem are opened on first use: most
  // checkpoints are only ever cloned again, never resumed.
  next_number_ = parent.next_number_;
  position_count_ = parent.position_count_;
  Task& task = add_task(child);
  task_ = &task;
}

trace::TraceReader& ReplaySession::reader() {
  if (!reader_) {
    reader_ = std::make_unique<trace::TraceReader>(trace_dir_);
    reader_->seek(reader_position_);
  }
  return *reader_;
}

ReplaySession::~ReplaySession() = default;

std::unique_ptr<ReplaySession> ReplaySession::clone() {
  // task_ is a live thread while any is left (current_thread_ended).
  if (!task_->alive()) {
    throw std::runtime_error("no thread of the program is left to copy at event " + std::to_string(event_number_));
  }
  pid_t child = task_->remote_fork(kToolSyscallInsn);
  std::unique_ptr<ReplaySession> copy(new ReplaySession(*this, child));
  copy_threads_into(*copy);
  copy->shared_ = shared_.copy_into(copy->space_tasks());
  copy->shared_.set_spaces([session = copy.get()] { return session->space_tasks(); });
  return copy;
}

void ReplaySession::diverged(const std::string& what) const {
  throw ReplayDivergence(event_number_, what);
}

void ReplaySession::start() {
  pin_to_cpu(header_->recorded_cpu);
  std::string exe = replay_stub_exe();
  pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + strerror(errno));
  if (pid == 0) {
    ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
    prctl(PR_SET_TSC, PR_TSC_SIGSEGV, 0, 0, 0);
    personality(ADDR_NO_RANDOMIZE);
    // Calls through the vsyscall page stop as they did when recorded.
    if (!install_vsyscall_filter()) _exit(126);
    raise(SIGSTOP);
    char* argv[] = {const_cast<char*>(exe.c_str()), const_cast<char*>(kStubArg), nullptr};
    char* envp[] = {nullptr};
    execve(exe.c_str(), argv, envp);
    _exit(127);
  }
  Task& task = add_task(pid);
  task_ = &task;
  WaitStatus ws = task.wait();
  if (!ws.is_signal() || ws.signal != SIGSTOP) throw std::runtime_error("replay stub did not start");
  task.set_options(PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEEXEC | PTRACE_O_TRACECLONE |
                   PTRACE_O_TRACESECCOMP);
  task.resume(ResumeHow::Continue);
  ws = task.wait();
  if (ws.kind != WaitStatus::Kind::EventStop || ws.event != PTRACE_EVENT_EXEC) {
    throw std::runtime_error("replay stub did not exec: " + ws.describe());
  }
  task.open_memory();
  install_tool_page(task);
  shared_.set_spaces([this] { return space_tasks(); });
  rebuild_address_space(task, *exec_, reader(), shared_);
  current_tid_ = debuggee_ = exec_->tid;
  brk_[current_tid_] = static_cast<uint64_t>(exec_->status);
  ReplayThread& first = threads_[current_tid_] = ReplayThread{&task};
  first.pid = first.space = current_tid_;
  processes_.insert(current_tid_);
  stub_areas_[first.space] = recorded_stub_areas(*exec_);
  execs_[current_tid_] = exec_;
}

ReplayResult ReplaySession::run_to_end() {
  for (;;) {
    ReplayStop stop = resume({});
    if (stop.kind == ReplayStop::Kind::TraceEnd) break;
    if (stop.kind != ReplayStop::Kind::ProgramEnd) continue;
    // The debugged process ended while others go on: replay them too.
    const trace::Event* next = peek_next();
    if (!next || next->kind != trace::EventKind::Exit || processes_.size() <= 1) break;
    trace::Event exit = *take_event();
    end_process(exit);
  }
  ReplayResult result = end_result();
  task_->kill();
  if (result.end == ReplayResult::End::Exited) check_after_exit(trace_dir_, next_number_);
  return result;
}

ReplayResult ReplaySession::end_result() {
  ReplayResult result;
  result.events = next_number_;
  const trace::Event* next = peek_next();
  if (!next) {
    result.end = ReplayResult::End::TraceCutShort;
    result.message = "the trace ends at event " + std::to_string(next_number_) +
                     ": the recording was cut short (was the recorder killed?); replayed up to there";
  } else if (next->kind == trace::EventKind::Abort) {
    result.end = ReplayResult::End::RecordingStopped;
    result.message = "the recording stopped at event " + std::to_string(next_number_) + ": " +
                     trace::printable(next->message);
  } else if (next->kind == trace::EventKind::Exit) {
    // The debugged process's status; at the end of the whole tree, the
    // first process's, which is the recording's.
    int status = static_cast<int>(next->status);
    if (next->tid != debuggee_ && next->tid != exec_->tid && root_status_) status = *root_status_;
    result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else {
    result.end = ReplayResult::End::RecordingStopped;
    result.message = "replay stopped before event " + std::to_string(next_number_);
  }
  return result;
}

const trace::Event* ReplaySession::peek_next() {
  if (!peeked_) {
    peeked_ = reader().next();
    if (!peeked_) return nullptr;
  }
  return &*peeked_;
}

namespace {
std::atomic<uint64_t> g_events_taken{0};
std::atomic<uint64_t> g_last_event{0};
}  // namespace

ReplayActivity replay_activity() {
  return {g_events_taken.load(std::memory_order_relaxed), g_last_event.load(std::memory_order_relaxed)};
}

std::optional<trace::Event> ReplaySession::take_event() {
  std::optional<trace::Event> e;
  if (peeked_) {
    e = std::move(peeked_);
    peeked_.reset();
  } else {
    e = reader().next();
  }
  event_number_ = next_number_;
  next_number_ = reader().next_event_number();
  if (options_.progress) options_.progress(next_number_);
  g_events_taken.fetch_add(1, std::memory_order_relaxed);
  g_last_event.store(event_number_, std::memory_order_relaxed);
  if (e) {
    last_kind_ = e->kind;
    last_tid_ = e->tid;
    if (e->kind == trace::EventKind::Syscall) {
      std::optional<Registers> call = native_call_of(e->regs, e->status);
      if (call) last_syscall_ = static_cast<long>(call->syscallno());
    }
    if (trace::kind_traits(e->kind).delivers_signal) {
      last_signal_ = static_cast<int>(e->status);
      last_siginfo_ = e->siginfo;
    }
  }
  return e;
}

namespace {


// An event replay reaches without running: a signal delivered right after
// the previous event, a thread that starts or ends.
bool at_boundary(const trace::Event& e) {
  trace::EventKindTraits traits = trace::kind_traits(e.kind);
  if (traits.reached_without_running) return true;
  if (!traits.delivers_signal) return false;
  return !is_synchronous_fault(siginfo_from_bytes(e.siginfo));
}

// Whether every change lies in r15 .. rip (Task::set_regs_up_to_ip).
bool changes_only_up_to_ip(const std::vector<trace::RegChange>& changes) {
  constexpr std::size_t kCsWord = offsetof(user_regs_struct, cs) / sizeof(uint64_t);
  for (const trace::RegChange& c : changes) {
    if (c.index >= kCsWord) return false;
  }
  return true;
}

}  // namespace

ReplayStop ReplaySession::resume(Resume how) {
  ++runs_;
  // The traps are this run's alone: cleared however it ends.
  traps_ = std::move(how.traps);
  pending_code_.clear();
  struct ClearTraps {
    Traps& traps;
    ~ClearTraps() { traps = {}; }
  } clear_traps{traps_};
  interrupt_poll_ = std::move(how.interrupted);
  poll_period_ = how.poll_period;
  ReplayStop stop;
  for (;;) {
    const trace::Event* next = peek_next();
    if (!next) {
      stop.kind = ReplayStop::Kind::TraceEnd;
      return stop;
    }
    // The recording stopped at an Abort: with its registers (a refused
    // system call), the program runs on up to that call, so the code before
    // it stays reachable; it is never replayed.
    bool abort = next->kind == trace::EventKind::Abort;
    bool exit = next->kind == trace::EventKind::Exit;
    if ((exit && ends_replay(*next)) || (abort && (!next->regs || at_pending_event_))) {
      stop.kind = ReplayStop::Kind::ProgramEnd;
      return stop;
    }
    // The event runs on its own thread; a new thread or process does not
    // exist yet, and an ended process has no thread left to run.
    bool creates = trace::kind_traits(next->kind).creates_thread;
    if (!creates && !exit) {
      switch_to(next->tid);
      // A flush comes before the thread's next event, which decides.
      if (next->kind != trace::EventKind::BufferFlush) apply_pending_restart(*next);
    }
    // Steps and breakpoints belong to the debugged process; the others run
    // through.
    bool step = how.single_step && (creates || exit || in_debuggee());
    // A thread that entered a blocking call is already at its entry (also
    // when the recording stopped after that call, at its Abort).
    bool parked = (next->kind == trace::EventKind::Syscall || abort) && threads_[current_tid_].at_entry;
    if (!at_pending_event_ && !at_boundary(*next) && !parked) {
      bool stepping_over = false;
      std::optional<ReplayStop> trap = run_to_event(*next, step, stepping_over);
      if (trap) {
        if (trap->kind == ReplayStop::Kind::Step && stepping_over) continue;  // stepped over a breakpoint
        trap->event = stop.event;
        return *trap;
      }
    }
    // The program is at `next` (or needs no running to get there).
    if (abort) {
      event_number_ = next_number_;
      check_registers(*next);
      at_pending_event_ = true;
      stop.kind = how.stop_before && how.stop_before(*next) ? ReplayStop::Kind::EventPending
                                                            : ReplayStop::Kind::ProgramEnd;
      return stop;
    }
    if (!at_pending_event_ && how.stop_before && how.stop_before(*next)) {
      event_number_ = next_number_;
      check_registers(*next);
      // A call through the vsyscall page waits in user code, not in the
      // kernel, where nothing could move the thread (engine/core/vsyscall.h).
      if (is_vsyscall_event(*next)) back_out_of_vsyscall(*task_);
      at_pending_event_ = true;
      stop.kind = ReplayStop::Kind::EventPending;
      return stop;
    }
    at_pending_event_ = false;
    breakpoint_reported_ = false;  // the event may move the pc (a signal's handler)
    trace::Event event = *take_event();
    stop.kind = ReplayStop::Kind::EventReplayed;
    apply_event(event, stop);
    if (stop.kind == ReplayStop::Kind::Watchpoint) return stop;
    // A position, a thread's start or end, or a blocking call that other
    // threads' events follow, runs no instruction of this thread's: a step
    // goes on to what follows.
    bool silent = trace::kind_traits(event.kind).runs_no_instruction;
    if (silent && !how.stop_after_event) continue;
    if (step && event.kind != trace::EventKind::FatalSignal) {
      // The instruction (syscall, rdtsc, fault) ran; a delivered signal
      // stops at its handler's first instruction, as under the kernel.
      stop.kind = ReplayStop::Kind::Step;
      return stop;
    }
    if (how.stop_after_event) return stop;
  }
}

std::optional<ReplayStop> ReplaySession::run_to_event(const trace::Event& next, bool single_step,
                                                      bool& stepping_over) {
  if (next.kind == trace::EventKind::Position) {
    stepping_over = false;
    return run_to_position(next, single_step);
  }
  // First, as it may fail (an address the kernel refuses): nothing has
  // changed then, and the replay stays where it is.
  arm_watchpoints();
  // Only breakpoints need the pc (a register read per stop otherwise saved).
  uint64_t pc = traps_.breakpoints.empty() ? 0 : task_->regs().ip();
  open_counters_for_run();
  stepping_over = !single_step && breakpoint_reported_ && traps_.breakpoints.count(pc);
  breakpoint_reported_ = false;
  insert_breakpoints();
  if (stepping_over) {
    // Step the breakpoint's own instruction without its int3.
    int3s_.remove(*task_, pc);
  }
  WaitStatus ws;
  if (watching_in_software()) {
    SoftWatchStop soft = step_while_watching(single_step || stepping_over);
    if (soft.interrupted || soft.hit) {
      remove_breakpoints();
      event_number_ = next_number_;
      return soft.hit ? watch_stop(*soft.hit) : ReplayStop{ReplayStop::Kind::Interrupted};
    }
    ws = soft.status;
  } else {
    ws = resume_past_watched_writes(single_step || stepping_over ? ResumeHow::SysemuSingleStep : ResumeHow::Sysemu);
  }
  remove_breakpoints();
  event_number_ = next_number_;
  if (ws.requested) {
    // Stopped before the step over the breakpoint's instruction ran: it is
    // still to be stepped over, not hit again.
    if (stepping_over && task_->regs().ip() == pc) breakpoint_reported_ = true;
    return ReplayStop{ReplayStop::Kind::Interrupted};
  }
  if (ws.is_gone()) diverged("the program ended early: " + ws.describe());
  if (ws.kind == WaitStatus::Kind::EventStop) diverged("unexpected ptrace event " + std::to_string(ws.event));
  if (ws.is_syscall()) {
    if (!trace::kind_traits(next.kind).reached_at_syscall) {
      diverged(std::string("reached a system call, expected ") + trace::to_string(next.kind));
    }
    return std::nullopt;
  }
  int sig = ws.signal;
  ReplayStop trap;
  TrapAfter after = single_step || stepping_over ? TrapAfter::SingleStep : TrapAfter::Run;
  if (sig == SIGTRAP && classify_trap(trap, after)) return trap;
  // A fault the recording has: rdtsc, or a signal raised by an instruction.
  bool expected = (next.kind == trace::EventKind::Rdtsc && sig == SIGSEGV) ||
                  (trace::kind_traits(next.kind).delivers_signal && static_cast<int>(next.status) == sig);
  if (!expected && sig == SIGILL) {
    std::string why = buffered_call_divergence();
    if (!why.empty()) diverged(why);
  }
  if (!expected) {
    std::ostringstream os;
    os << "expected " << trace::to_string(next.kind) << ", got " << ws.describe() << " at rip 0x" << std::hex
       << task_->regs().ip();
    diverged(os.str());
  }
  return std::nullopt;
}

void ReplaySession::apply_event(const trace::Event& event, ReplayStop& stop) {
  if (event.kind == trace::EventKind::Syscall) threads_[current_tid_].at_entry = false;
  // A new thread's registers are where it starts, not where it is; an
  // ending thread's are not recorded.
  // An exec's registers are the new program's (exec_process checks the
  // call), and a process's end has none.
  if (trace::kind_traits(event.kind).replay_checks_registers) check_registers(event);
  stop.event = event_number_;
  switch (event.kind) {
    case trace::EventKind::Syscall: replay_syscall(event, stop); break;
    case trace::EventKind::Rdtsc:
      apply_effects(event);
      patched_sites(event);  // the site read by the library from now on (tsc_buffering.cc)
      break;
    case trace::EventKind::Signal: apply_effects(event); break;
    case trace::EventKind::FatalSignal: break;  // the Exit event follows
    case trace::EventKind::Position: break;     // reached: nothing changes
    case trace::EventKind::SyscallEntered:
      // What the kernel wrote as the call began (a PI futex word).
      write_memory(*task_, event);
      threads_[current_tid_].at_entry = true;
      break;
    case trace::EventKind::ThreadStart: start_thread(event); break;
    case trace::EventKind::ThreadExit: end_thread(event); break;
    case trace::EventKind::ProcessStart: start_process(event); break;
    case trace::EventKind::Exec: exec_process(event); break;
    case trace::EventKind::Exit: end_process(event); break;
    case trace::EventKind::BufferFlush:
      // The thread's buffered calls until its next event: the library
      // returns their results as it reaches them (preload/).
      write_memory(*task_, event);
      break;
    case trace::EventKind::TraceeChange:
      // What its recorded tracer changed while it stood here.
      write_memory(*task_, event);
      if (event.regs) task_->set_regs(Registers::from_block(*event.regs));
      if (!event.xstate.empty()) task_->set_xstate(event.xstate);
      break;
    default: diverged(std::string("unexpected ") + trace::to_string(event.kind) + " event");
  }
}

void ReplaySession::check_registers(const trace::Event& event) {
  if (!event.regs) diverged("event has no registers");
  Registers live = task_->regs();
  if (live.to_block() == *event.regs) return;  // the usual case, without building a report
  std::string diff = Registers::differences(Registers::from_block(*event.regs), live);
  if (!diff.empty()) diverged(std::string(trace::to_string(event.kind)) + ": registers differ: " + diff);
}

void ReplaySession::write_memory(Task& task, const trace::Event& event) {
  for (const trace::MemoryWrite& w : event.writes) task.write_bytes(remote_ptr<void>(w.addr), w.data.data(), w.data.size());
}

void ReplaySession::apply_effects(const trace::Event& event) {
  write_memory(*task_, event);
  Registers regs = Registers::from_block(*event.regs);
  regs.apply(event.reg_changes);
  if (event.kind == trace::EventKind::Rdtsc && changes_only_up_to_ip(event.reg_changes)) {
    // The live registers equal the recorded ones (check_registers): writing
    // the few that rdtsc changed is enough, and much cheaper per event.
    task_->set_regs_up_to_ip(regs);
  } else {
    task_->set_regs(regs);
  }
  if (!event.xstate.empty()) task_->set_xstate(event.xstate);
}

void ReplaySession::replay_syscall(const trace::Event& event, ReplayStop& stop) {
  Registers entry = Registers::from_block(*event.regs);
  // A 32-bit call (int 0x80) is replayed as the 64-bit call it was recorded as.
  std::optional<Registers> native = native_call_of(event.regs, event.status);
  if (!native) diverged("the event's system call ABI " + std::to_string(event.status) + " is not one backstep records");
  long nr = static_cast<long>(native->syscallno());
  if (nr == SYS_exit || nr == SYS_exit_group) return;  // the Exit event follows
  Registers exit = entry;
  exit.apply(event.reg_changes);
  std::vector<std::vector<uint8_t>> watched;
  bool watching = !traps_.watchpoints.empty() && in_debuggee();
  if (watching) watched = watched_values();
  if (is_vsyscall_event(event)) {
    replay_vsyscall(event, exit);
    if (watching) note_watched_change(watched, stop);
    return;
  }
  ReplayMmCall call{*task_, reader(), event, *native, exit.syscall_result(), brk_[threads_[current_tid_].space],
                    shared_, open_copies_[threads_[current_tid_].pid]};
  std::string problem = replay_address_space_call(call);
  if (!problem.empty()) diverged(problem);
  for (const trace::ObjectWrite& w : event.object_writes) {
    problem = shared_.write(w.object, w.offset, w.data);
    if (!problem.empty()) diverged(problem);
  }
  apply_effects(event);
  patched_sites(event);
  if (nr == BS_CALL_REGISTER_BUFFER) registered_buffer(*native, exit.syscall_result());
  note_thread_name(*native, exit.syscall_result());
  if (event.written) check_written(event, *native, exit.syscall_result());
  echo(event);
  restart_if_interrupted(exit);
  if (watching) note_watched_change(watched, stop);
}

void ReplaySession::note_watched_change(const std::vector<std::vector<uint8_t>>& before, ReplayStop& stop) {
  if (std::optional<Watchpoint> w = watched_range_changed(before)) {
    stop.kind = ReplayStop::Kind::Watchpoint;
    stop.address = w->addr;
    stop.watch_kind = w->kind;
    stop.by_kernel = true;
  }
}

bool is_vsyscall_event(const trace::Event& e) {
  return e.kind == trace::EventKind::Syscall && e.regs && in_vsyscall_page(Registers::from_block(*e.regs).ip());
}

// A call through the vsyscall page, at its seccomp stop (the registers were
// checked): the recorded bytes and result, and the kernel's return to the
// caller (engine/core/vsyscall.h), which must land where it did.
void ReplaySession::replay_vsyscall(const trace::Event& event, const Registers& exit) {
  write_memory(*task_, event);
  Registers back = finish_vsyscall(*task_, exit.syscall_result(), nullptr);
  std::string diff = Registers::differences(exit, back);
  if (!diff.empty()) diverged("vsyscall: registers after the return differ: " + diff);
}

// Replay does not perform writes: instead it reads what the program passes
// and compares it with what the recorded call took. Read after the event's
// memory effects, as the recorder read at the exit stop (sendmmsg's msg_len
// fields are among those effects).
void ReplaySession::check_written(const trace::Event& event, const Registers& entry, int64_t result) {
  std::optional<std::vector<uint8_t>> live = read_written_bytes(*task_, entry, result);
  if (!live) diverged("the trace holds written data for a call that writes none");
  std::string problem = trace::compare_written(*event.written, event.echoes, *live);
  if (!problem.empty()) diverged(problem);
}

void ReplaySession::restart_if_interrupted(const Registers& exit) {
  // A call interrupted by a signal returns a restart code to the kernel's
  // exit path. With a handler to run, the thread's next event is that
  // signal's delivery. Without one (the recorder held back or ignored the
  // signal), the kernel backs up to re-execute the call, or restart_syscall.
  // Which of the two is known only at the thread's next event, which other
  // threads' events may precede: note the backed-up registers, and
  // apply_pending_restart() uses them unless that event is a signal.
  int64_t r = exit.syscall_result();
  if (!is_restart_code(r)) {
    return;
  }
  Registers regs = exit;
  regs.set_ip(regs.ip() - 2);
  regs.raw().rax = r == -kErestartRestartblock ? SYS_restart_syscall : regs.syscallno();
  threads_[current_tid_].restart = regs;
}

void ReplaySession::apply_pending_restart(const trace::Event& next) {
  auto it = threads_.find(current_tid_);
  if (it == threads_.end() || !it->second.restart) return;
  Registers regs = *it->second.restart;
  it->second.restart.reset();
  if (trace::kind_traits(next.kind).delivers_signal) return;
  task_->set_regs(regs);
}

void ReplaySession::echo(const trace::Event& event) {
  if (!options_.echo_stdio || echo_failed_) return;
  for (const trace::StdioEcho& e : event.echoes) {
    const uint8_t* p = e.data.data();
    std::size_t left = e.data.size();
    while (left > 0) {
      ssize_t n = write(e.fd == 2 ? STDERR_FILENO : STDOUT_FILENO, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        echo_failed_ = true;  // our output was closed; keep replaying silently
        return;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
}

}  // namespace backstep
