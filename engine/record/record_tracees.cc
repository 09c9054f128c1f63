// The recorder's side of ptrace emulation (ptrace_emulation.h): the stops a
// traced thread makes while it runs, what its tracer learns of them, and
// the waits held for them.
//
// - A signal a traced thread meets at a boundary (every signal is
//   delivered at one, record_signals.cc) stops it for its tracer instead:
//   it stays at its real signal-delivery stop, out of the scheduler, and
//   its tracer is sent SIGCHLD (CLD_TRAPPED), as the kernel does. When its
//   tracer resumes it, the signal is dropped (no signal given) or
//   delivered (the one given). Replay needs nothing: a dropped signal
//   leaves no event, a delivered one is recorded as any delivery.
// - A wait that no stop answers yet is held at its entry, as a blocking
//   call that has not returned (SyscallEntered), until a tracee stops (the
//   recorder answers it), or until what remains for it is the kernel's to
//   report (a child's death): then the kernel runs it.
#include <sched.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>

#include <string>

#include "values/log.h"
#include "engine/core/signals.h"
#include "engine/core/state_digest.h"
#include "engine/core/x86_decoder.h"
#include "engine/record/position_site.h"
#include "engine/record/record_session.h"
#include "engine/record/tracer_debug_registers.h"
#include "engine/record/syscall_context.h"
#include "preload/preload_interface.h"

namespace backstep {

bool is_step_trap(const siginfo_t& info) {
  // TRAP_TRACE: an instruction stepped; TRAP_BRKPT: a system call stepped
  // over; SIGTRAP itself as the code: a step that delivered a signal, at
  // its handler's first instruction (raise_step_trap); TRAP_HWBKPT: a debug
  // register its tracer armed (tracer_debug_registers.h), not armed in
  // replay.
  return info.si_signo == SIGTRAP && (info.si_code == TRAP_TRACE || info.si_code == TRAP_BRKPT ||
                                      info.si_code == SIGTRAP || info.si_code == TRAP_HWBKPT);
}

ResumeHow RecordSession::tracee_resume_how(RecordTask& t) {
  if (!t.trace_step) return ResumeHow::Syscall;
  // A step over a system call: the call is traced as any (a single step
  // would run it unseen where no seccomp stop comes), and its trap is
  // raised at its exit (raise_step_trap).
  uint8_t code[2] = {};
  if (t.task.read_some(remote_ptr<void>(t.task.regs().ip()), code, 2) == 2 &&
      x86::is_syscall_instruction(code, true)) {
    return ResumeHow::Syscall;
  }
  return t.trace_block ? ResumeHow::SingleBlock : ResumeHow::SingleStep;
}

void RecordSession::hold_call(RecordTask& t) {
  SyscallContext& ctx = *t.in_syscall;
  BS_LOG(Record, "thread " << t.tid() << ": its " << ctx.info.name << " waits for a tracee");
  trace::Event entered;
  entered.kind = trace::EventKind::SyscallEntered;
  entered.tid = ctx.event.tid;
  entered.regs = ctx.event.regs;
  if (!ctx.entered_written) write_event(entered);
  t.held_wait = true;
  t.run = RunState::Stopped;
  if (current_ == &t) current_ = nullptr;
}

void RecordSession::wake_tracers() {
  for (auto& [tid, t] : record_tasks_) {
    if (!t->held_wait || !t->in_syscall || t->run == RunState::Gone) continue;
    switch (decide_wait(*t->in_syscall, *t)) {
      case WaitOutcome::Held:
        continue;
      case WaitOutcome::Answered:
        // Its exit, when it is scheduled, records the answer.
        t->held_wait = false;
        t->in_syscall->held = false;
        continue;
      case WaitOutcome::Kernel:
        BS_LOG(Record, "thread " << tid << ": its held wait goes to the kernel");
        t->held_wait = false;
        t->in_syscall->held = false;
        t->task.resume(ResumeHow::Syscall);
        t->run = RunState::InKernel;
        continue;
    }
  }
}

bool RecordSession::stop_for_tracer(RecordTask& t, const siginfo_t& info, bool at_boundary) {
  int sig = info.si_signo;
  if (t.injected_signal == sig) {
    t.injected_signal = 0;  // the tracer's own, given to PTRACE_CONT
    return false;
  }
  EmulatedTracee* tracee = ptrace_.tracee(t.tid());
  if (tracee->tracer_process == 0) {
    throw RecordingRefused("signal " + std::to_string(sig) + " came for thread " + std::to_string(t.tid()) +
                           ", which called PTRACE_TRACEME with a parent outside the recording: it would stop "
                           "for a tracer that is not recorded");
  }
  BS_LOG(Record, "thread " << t.tid() << " stops with signal " << sig << " for its tracer " << tracee->tracer);
  t.trace_stop_signal = info;
  t.trace_stop_deliverable = at_boundary || !is_step_trap(info);
  t.trace_step = false;
  t.trace_block = false;
  // Where it stops, should its tracer change it here: at a boundary, its
  // previous event; after a single step, a position taken now (its digest
  // is of the state before any change); at a fault, the fault's event.
  t.stop_changed = false;
  t.stop_mark.reset();
  t.stop_inexact = nullptr;
  if (!at_boundary) {
    Registers here = without_trap_flags(t.task.regs());
    if (is_step_trap(info)) {
      if (in_buffered_call(t) || !good_position(t.task, here.ip())) {
        t.stop_inexact = "after a single step into code no position can name (backstep's syscall buffering)";
      } else {
        trace::Event position;
        position.kind = trace::EventKind::Position;
        position.tid = static_cast<uint32_t>(t.tid());
        position.regs = here.to_block();
        position.position = trace::ForcedPosition{state_digest(t.task, t.task.xstate()).combined(), false};
        t.stop_mark = std::move(position);
      }
    } else if (is_synchronous_fault(info)) {
      t.stop_mark = signal_event(t, info, t.task.regs());  // with no effect
    } else {
      t.stop_inexact = "at a signal in user code";
    }
  }
  enter_trace_stop(t, *tracee, (sig << 8) | 0x7f, info, TraceStop::Signal);
  return true;
}

void RecordSession::enter_trace_stop(RecordTask& t, EmulatedTracee& tracee, int status, const siginfo_t& info,
                                     TraceStop kind) {
  ptrace_.stop(tracee, status, info, kind);
  // A vfork's parent waits in the kernel meanwhile (its event stop).
  if (t.run != RunState::InKernel) t.run = RunState::Stopped;
  if (current_ == &t) current_ = nullptr;
  notify_tracer(tracee, t.tid(), status);
  wake_tracers();
}

bool RecordSession::before_tracee_change(RecordTask& t, std::string& why) {
  if (t.stop_inexact) {
    why = std::string("its tracer changed thread ") + std::to_string(t.tid()) + " stopped " + t.stop_inexact;
    return false;
  }
  if (t.stop_mark) {
    write_event(*t.stop_mark);
    if (t.stop_mark->kind == trace::EventKind::Position) ++result_.forced_positions;
    if (t.stop_mark->kind == trace::EventKind::SyscallEntered) t.entered_written = true;
    t.stop_mark.reset();
  }
  t.stop_changed = true;
  return true;
}

void RecordSession::record_tracee_change(RecordTask& t, std::vector<trace::MemoryWrite> writes,
                                         std::optional<Registers> regs, std::vector<uint8_t> xstate) {
  trace::Event event;
  event.kind = trace::EventKind::TraceeChange;
  event.tid = static_cast<uint32_t>(t.tid());
  event.writes = std::move(writes);
  if (regs) event.regs = regs->to_block();
  event.xstate = std::move(xstate);
  write_event(event);
}

void RecordSession::record_write_into(SyscallContext& ctx, pid_t pid,
                                      const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  RecordTask* owner = record_task(pid);
  if (!owner || !owner->process) return;
  // Every thread of that process stands at an exact position (only the
  // writer runs), or in an emulated stop whose position goes in first.
  RecordTask* target = nullptr;
  for (auto& [tid, t] : record_tasks_) {
    if (t->process != owner->process || t->run == RunState::Gone) continue;
    if (ptrace_.holds(tid)) {
      std::string why;
      if (!before_tracee_change(*t, why)) {
        ctx.refuse_after_call("the program wrote into the memory of process " + std::to_string(pid) + ": " + why +
                              ", where its change cannot be replayed yet");
      }
      if (!target) target = t.get();
    }
  }
  if (!target) target = owner->run != RunState::Gone ? owner : nullptr;
  for (auto& [tid, t] : record_tasks_) {
    if (!target && t->process == owner->process && t->run != RunState::Gone) target = t.get();
  }
  if (!target) return;
  std::vector<trace::MemoryWrite> writes;
  for (const auto& [addr, len] : ranges) {
    trace::MemoryWrite w;
    w.addr = addr;
    w.data.resize(len);
    w.data.resize(target->task.read_some(remote_ptr<void>(addr), w.data.data(), len));
    if (!w.data.empty()) writes.push_back(std::move(w));
  }
  BS_LOG(Record, "a write into process " << pid << ": " << writes.size() << " ranges, as thread " << target->tid()
                                         << "'s");
  record_tracee_change(*target, std::move(writes), std::nullopt);
}

void RecordSession::resume_traced(RecordTask& t, bool changed) {
  std::optional<siginfo_t> stopped_with = std::exchange(t.trace_stop_signal, std::nullopt);
  std::optional<siginfo_t> given = std::exchange(t.tracer_signal, std::nullopt);
  if (stopped_with) {
    bool fault = is_synchronous_fault(*stopped_with) && !is_step_trap(*stopped_with);
    if (!given) {
      // The tracer dropped it. A fault (int3, a bad access) happens again
      // where replay runs that code: an event with no effect says it was
      // dropped there (written already if the tracer changed the thread
      // there). A single step's trap or a signal sent at a boundary does
      // not come back in replay: nothing to say.
      if (fault && !changed) write_event(signal_event(t, *stopped_with, t.task.regs()));
      // That event, or the change, is where replay has the thread exactly:
      // a signal that comes as it resumes (one the tracer unblocked with
      // PTRACE_SETSIGMASK) is delivered there, as natively.
      if (fault || changed) t.reached_boundary(t.task.regs());
      t.task.resume(tracee_resume_how(t));
      return;
    }
    if (fault && changed) {
      throw RecordingRefused("the tracer of thread " + std::to_string(t.tid()) + " changed it at a fault and then "
                             "delivered signal " + std::to_string(given->si_signo) +
                             ": delivering a fault's signal after such a change is not emulated yet");
    }
    if (fault && !changed) {
      // The fault comes again where replay runs that code; a signal given
      // instead that leaves no event of its own must say it was dropped.
      SignalAction action = signal_action(t.task.tid(), given->si_signo);
      if (action == SignalAction::Ignore || action == SignalAction::Stop) {
        write_event(signal_event(t, *stopped_with, t.task.regs()));
      }
    }
    t.task.set_siginfo(*given);
    deliver_signal(t, *given, t.task.regs());
    return;
  }
  // Not at a signal stop (an attach's, an interrupt's): the signal is
  // raised now and delivered when it comes, at the boundary it stands at.
  t.injected_signal = given->si_signo;
  raise_with_info(t, *given);
  t.task.resume(ResumeHow::Syscall);
}

void RecordSession::notify_tracer(const EmulatedTracee& tracee, pid_t tid, int status, bool job_control) {
  // The kernel sends SIGCHLD unless the tracer's process ignores it
  // explicitly or asked for no stop notices (SA_NOCLDSTOP).
  RecordTask* tracer = record_task(tracee.tracer);
  if (!tracer || tracer->run == RunState::Gone || !tracer->process) return;
  if (signal_ignored(tracer->process->pid, SIGCHLD)) return;
  siginfo_t info{};
  info.si_signo = SIGCHLD;
  info.si_pid = tid;
  describe_child_status(info, status);
  if (info.si_code == CLD_TRAPPED) {
    // The signal alone, as SIGCHLD says it (a wait gets the whole stop
    // code); the kernel's STOP traps (an INTERRUPT's, a group-stop's) are
    // CLD_STOPPED, with the group's stop signal if it is stopped.
    info.si_status &= 0x7f;
    if (job_control) {
      info.si_code = CLD_STOPPED;
      if (info.si_status == SIGTRAP) info.si_status = 0;
    }
  }
  if ((info.si_code == CLD_TRAPPED || info.si_code == CLD_STOPPED) && tracer->process->sigchld_nocldstop) return;
  for (const siginfo_t& pending : tracer->redelivering) {
    if (pending.si_signo == SIGCHLD) return;  // one SIGCHLD is pending already
  }
  raise_with_info(*tracer, info);
}

void RecordSession::let_tracees_go(RecordTask& gone, int status) {
  pid_t tid = gone.tid();
  for (pid_t tracee : ptrace_.tracees_of(tid)) {
    RecordTask* t = record_task(tracee);
    if (!t || t->run == RunState::Gone) continue;
    const EmulatedTracee& traced = *ptrace_.tracee(tracee);
    if (traced.options & PTRACE_O_EXITKILL) {
      // The kernel kills it; the recorder sees it die like any other.
      ::syscall(SYS_tgkill, t->process->pid, tracee, SIGKILL);
      continue;
    }
    if (traced.syscall_stops) set_traced_calls(*t, false);
    tracer_debug::disarm(*t);
    if (t->trace_stop_signal && !t->tracer_signal) t->tracer_signal = t->trace_stop_signal;
  }
  ptrace_.forget(tid);
  EmulatedTracee* self = ptrace_.tracee(tid);
  if (!self || self->dead) return;
  // A process's first thread, whose parent traces it: the kernel reports
  // its death to that parent. Any other tracee's death is its tracer's to
  // hear of from the emulation.
  RecordTask* tracer = record_task(self->tracer);
  bool parent_reaps = gone.is_leader() && gone.process->parent == self->tracer_process;
  if (parent_reaps || !tracer || tracer->run == RunState::Gone) {
    ptrace_.detach(tid);
    return;
  }
  BS_LOG(Record, "traced thread " << tid << " died: its tracer " << self->tracer << " hears of it");
  ptrace_.stop(*self, status, siginfo_t{}, TraceStop::Signal);
  self->dead = true;
  notify_tracer(*self, tid, status);
}

void RecordSession::raise_step_trap(RecordTask& t, bool into_handler) {
  if (!t.trace_step || !ptrace_.traced_running(t.tid())) return;
  siginfo_t info{};
  info.si_signo = SIGTRAP;
  if (into_handler) {
    // The kernel's notice that a step delivered a signal: its code is the
    // signal's number, from the thread itself.
    info.si_code = SIGTRAP;
    info.si_pid = t.tid();
    info.si_uid = ::getuid();
  } else {
    info.si_code = TRAP_BRKPT;  // as the kernel reports a step over a system call
  }
  raise_with_info(t, info);
}

void RecordSession::raise_exec_trap(RecordTask& t) {
  if (!ptrace_.traced_running(t.tid())) return;
  siginfo_t info{};
  info.si_signo = SIGTRAP;
  info.si_code = SI_USER;
  info.si_pid = t.process->pid;
  raise_with_info(t, info);
}

namespace {

#ifndef CSIGNAL
constexpr uint64_t CSIGNAL = 0xff;  // the clone flags' exit signal
#endif

// A system-call stop's status and siginfo: SIGTRAP, with 0x80 added when
// the tracer asked for PTRACE_O_TRACESYSGOOD.
int syscall_stop_signal(const EmulatedTracee& tracee) {
  return SIGTRAP | ((tracee.options & PTRACE_O_TRACESYSGOOD) ? 0x80 : 0);
}

}  // namespace

bool RecordSession::stop_at_syscall_entry(RecordTask& t, const WaitStatus& ws) {
  EmulatedTracee* tracee = ptrace_.tracee(t.tid());
  uint8_t shown = std::exchange(t.entry_shown, 0);
  if (tracee && !tracee->stopped) {
    if (tracee->syscall_stops && !(shown & RecordTask::kShownEntry)) {
      BS_LOG(Record, "thread " << t.tid() << " stops at a call's entry for its tracer " << tracee->tracer);
      syscall_stop(t, *tracee, TraceStop::SyscallEntry);
      // Should its tracer change it here (a debugger's breakpoints), the
      // call's entry goes into the trace first: replay stops the thread
      // there (a SyscallEntered event), and the call runs after the change.
      trace::Event entered;
      entered.kind = trace::EventKind::SyscallEntered;
      entered.tid = static_cast<uint32_t>(t.tid());
      entered.regs = t.task.regs().to_block();
      t.stop_mark = std::move(entered);
      t.entry_shown = shown | RecordTask::kShownEntry;
      t.task.keep_status(ws);
      return true;
    }
    Registers regs = t.task.regs();
    long nr = static_cast<long>(regs.syscallno());
    if ((nr == SYS_exit || nr == SYS_exit_group) && (tracee->options & PTRACE_O_TRACEEXIT) &&
        !(shown & RecordTask::kShownExit)) {
      // PTRACE_EVENT_EXIT, its message the wait status to come.
      stop_for_event(t, *tracee, PTRACE_EVENT_EXIT, (regs.arg(0) & 0xff) << 8);
      t.entry_shown = shown | RecordTask::kShownExit;
      t.task.keep_status(ws);
      return true;
    }
  }
  if (shown) {
    // Its tracer let it go on from a stop at the entry: a signal it gave
    // there is raised now and delivered where the call ends, without a stop.
    if (std::optional<siginfo_t> given = std::exchange(t.tracer_signal, std::nullopt)) {
      t.injected_signal = given->si_signo;
      raise_with_info(t, *given);
    }
  }
  return false;
}

bool RecordSession::stop_for_job_control(RecordTask& t, int sig) {
  EmulatedTracee* tracee = ptrace_.tracee(t.tid());
  if (!tracee || tracee->stopped || tracee->dead) return false;
  bool group = sig != SIGTRAP;
  // SIGCONT's notice is for a seizing tracer only; a group-stop stops a
  // thread for any tracer.
  if (!group && !tracee->seized) return false;
  BS_LOG(Record, "thread " << t.tid() << " stops for its tracer " << tracee->tracer << " at a job-control trap ("
                           << sig << ")");
  // A seizing tracer sees PTRACE_EVENT_STOP; any other a stop with no
  // siginfo (EmulatedTracee::has_siginfo).
  siginfo_t info = tracee->seized ? stop_trap_siginfo(t.tid(), sig) : siginfo_t{};
  int status = ((tracee->seized ? info.si_code : sig) << 8) | 0x7f;
  // The real thread stands in the kernel's trap. Where that is its last
  // event's place (the thread that took the stop signal at a boundary),
  // its tracer may change it there (a debugger's breakpoints); elsewhere
  // (a thread the group-stop took in user code) a change could not be
  // placed in replay.
  t.run = RunState::Stopped;
  t.stop_changed = false;
  t.stop_mark.reset();
  bool at_boundary = t.at_syscall_boundary && Registers::differences(t.last_exit_regs, t.task.regs()).empty();
  t.stop_inexact = at_boundary ? nullptr : "at a job-control stop (a group-stop, or SIGCONT's notice) in user code";
  ptrace_.stop(*tracee, status, info, group ? TraceStop::Group : TraceStop::Event);
  tracee->real_stop_trap = true;
  if (current_ == &t) current_ = nullptr;
  notify_tracer(*tracee, t.tid(), status, /*job_control=*/true);
  wake_tracers();
  return true;
}

void RecordSession::stop_for_event(RecordTask& t, EmulatedTracee& tracee, int event, unsigned long message) {
  BS_LOG(Record, "thread " << t.tid() << " stops with ptrace event " << event << " for its tracer " << tracee.tracer);
  siginfo_t info{};
  info.si_signo = SIGTRAP;
  info.si_code = SIGTRAP | (event << 8);
  tracee.event_message = message;
  enter_trace_stop(t, tracee, ((SIGTRAP | (event << 8)) << 8) | 0x7f, info, TraceStop::Event);
  if (event == PTRACE_EVENT_EXIT) t.stop_inexact = "at its exit (PTRACE_EVENT_EXIT)";
}

void RecordSession::syscall_stop(RecordTask& t, EmulatedTracee& tracee, TraceStop kind) {
  // At a boundary: a call's exit follows its event; its entry's mark is
  // set by the caller.
  t.stop_mark.reset();
  t.stop_inexact = nullptr;
  t.stop_changed = false;
  siginfo_t info{};
  info.si_signo = SIGTRAP;
  info.si_code = syscall_stop_signal(tracee);
  enter_trace_stop(t, tracee, (syscall_stop_signal(tracee) << 8) | 0x7f, info, kind);
}

bool RecordSession::trace_created(RecordTask& t, pid_t child, uint64_t flags) {
  EmulatedTracee* tracee = ptrace_.tracee(t.tid());
  if (!tracee || tracee->stopped || (flags & CLONE_UNTRACED)) return false;
  int event = PTRACE_EVENT_CLONE;
  uint64_t option = PTRACE_O_TRACECLONE;
  if (flags & CLONE_VFORK) {
    event = PTRACE_EVENT_VFORK;
    option = PTRACE_O_TRACEVFORK;
  } else if ((flags & CSIGNAL) == SIGCHLD) {
    event = PTRACE_EVENT_FORK;
    option = PTRACE_O_TRACEFORK;
  }
  RecordTask* made = record_task(child);
  if (!(tracee->options & option) || !made) {
    // Not traced: a copy of its parent's buffer header says nothing of it.
    if (made && tracee->syscall_stops) set_traced_calls(*made, false);
    return false;
  }
  // The child is traced by the same tracer, with the same options, and
  // starts in a stop: SIGSTOP's, or for a seized tracer PTRACE_EVENT_STOP.
  EmulatedTracee copy = *tracee;
  EmulatedTracee& traced = ptrace_.attach(child, copy.tracer, copy.tracer_process, copy.seized);
  traced.options = copy.options;
  siginfo_t info{};
  int status = (SIGSTOP << 8) | 0x7f;
  info.si_signo = SIGSTOP;
  info.si_code = SI_USER;
  if (copy.seized) {
    // The kernel's STOP trap, its siginfo naming the child itself (a
    // SIGSTOP added without siginfo names no sender).
    info = stop_trap_siginfo(child, SIGTRAP);
    status = ((SIGTRAP | (PTRACE_EVENT_STOP << 8)) << 8) | 0x7f;
  }
  if (copy.syscall_stops) set_traced_calls(*made, false);
  // Told before its creator's event stop, which wakes the held waits.
  ptrace_.stop(traced, status, info, copy.seized ? TraceStop::Event : TraceStop::Signal);
  notify_tracer(traced, child, status);
  // A vfork's parent waits in the kernel for the child meanwhile; the
  // others stand at their call's exit, whose stop comes after the event.
  EmulatedTracee& parent = *ptrace_.tracee(t.tid());
  if (t.run != RunState::InKernel) t.exit_stop_pending = parent.syscall_stops;
  stop_for_event(t, parent, event, static_cast<unsigned long>(child));
  return true;
}

bool RecordSession::stop_after_vfork(RecordTask& t, pid_t child) {
  EmulatedTracee* tracee = ptrace_.tracee(t.tid());
  if (!tracee || tracee->stopped || !(tracee->options & PTRACE_O_TRACEVFORKDONE)) return false;
  t.exit_stop_pending = tracee->syscall_stops;
  stop_for_event(t, *tracee, PTRACE_EVENT_VFORK_DONE, static_cast<unsigned long>(child));
  return true;
}

bool RecordSession::stop_after_exec(RecordTask& t, pid_t former) {
  EmulatedTracee* tracee = ptrace_.tracee(t.tid());
  if (!tracee || tracee->stopped) return false;
  // The call has succeeded: its result, which the kernel writes on the way
  // out, is 0 already at the stops its tracer sees before that.
  Registers regs = t.task.regs();
  if (regs.syscall_result() == -ENOSYS) {
    regs.set_syscall_result(0);
    t.task.set_regs(regs);
  }
  if (tracee->options & PTRACE_O_TRACEEXEC) {
    t.exit_stop_pending = tracee->syscall_stops;
    stop_for_event(t, *tracee, PTRACE_EVENT_EXEC, static_cast<unsigned long>(former));
    return true;
  }
  raise_exec_trap(t);  // delivered after the call's exit stop, as the kernel does
  return stop_at_syscall_exit(t);
}

bool RecordSession::stop_at_syscall_exit(RecordTask& t) {
  EmulatedTracee* tracee = ptrace_.tracee(t.tid());
  if (!tracee || tracee->stopped || !tracee->syscall_stops) return false;
  BS_LOG(Record, "thread " << t.tid() << " stops at a call's exit for its tracer " << tracee->tracer);
  syscall_stop(t, *tracee, TraceStop::SyscallExit);
  return true;
}

void RecordSession::set_traced_calls(RecordTask& t, bool on) {
  if (!t.buffer) return;
  uint32_t word = on ? 1 : 0;
  try {
    t.task.write_bytes(remote_ptr<void>(t.buffer + offsetof(bs_buffer_header, traced)), &word, sizeof(word));
  } catch (const std::exception&) {
    // Its memory is going (an exit): no call to trace.
  }
}

}  // namespace backstep
