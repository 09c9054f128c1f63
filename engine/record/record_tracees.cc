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
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <string>

#include "values/log.h"
#include "engine/core/signals.h"
#include "engine/record/record_session.h"

namespace backstep {

bool is_step_trap(const siginfo_t& info) {
  return info.si_signo == SIGTRAP && (info.si_code == TRAP_TRACE || info.si_code == TRAP_BRKPT);
}

ResumeHow RecordSession::tracee_resume_how(RecordTask& t) {
  if (!t.trace_step) return ResumeHow::Syscall;
  // A step over a system call: the call is traced as any (a single step
  // would run it unseen where no seccomp stop comes), and its trap is
  // raised at its exit (raise_step_trap).
  uint8_t code[2] = {};
  if (t.task.read_some(remote_ptr<void>(t.task.regs().ip()), code, 2) == 2 &&
      ((code[0] == 0x0f && (code[1] == 0x05 || code[1] == 0x34)) || (code[0] == 0xcd && code[1] == 0x80))) {
    return ResumeHow::Syscall;
  }
  return ResumeHow::SingleStep;
}

void RecordSession::hold_call(RecordTask& t) {
  SyscallContext& ctx = *t.in_syscall;
  BS_LOG(Record, "thread " << t.tid() << ": its " << ctx.info.name << " waits for a tracee");
  trace::Event entered;
  entered.kind = trace::EventKind::SyscallEntered;
  entered.tid = ctx.event.tid;
  entered.regs = ctx.event.regs;
  write_event(entered);
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

bool RecordSession::stop_for_tracer(RecordTask& t, const siginfo_t& info, bool deliverable) {
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
  t.trace_stop_deliverable = deliverable;
  t.trace_step = false;
  ptrace_.stop(*tracee, (sig << 8) | 0x7f, info);
  t.run = RunState::Stopped;
  if (current_ == &t) current_ = nullptr;
  notify_tracer(*tracee, t.tid(), (sig << 8) | 0x7f);
  wake_tracers();
  return true;
}

void RecordSession::resume_traced(RecordTask& t) {
  std::optional<siginfo_t> stopped_with = std::exchange(t.trace_stop_signal, std::nullopt);
  std::optional<siginfo_t> given = std::exchange(t.tracer_signal, std::nullopt);
  if (stopped_with) {
    if (!given) {
      // The tracer dropped it. A fault (int3, a bad access) happens again
      // where replay runs that code: an event with no effect says it was
      // dropped there. A single step's trap or a signal sent at a boundary
      // does not come back in replay: nothing to say.
      if (is_synchronous_fault(*stopped_with) && !is_step_trap(*stopped_with)) {
        trace::Event event;
        event.kind = trace::EventKind::Signal;
        event.tid = static_cast<uint32_t>(t.tid());
        event.regs = t.task.regs().to_block();
        event.siginfo = siginfo_bytes(*stopped_with);
        event.status = stopped_with->si_signo;
        write_event(event);
      }
      t.task.resume(tracee_resume_how(t));
      return;
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

void RecordSession::notify_tracer(const EmulatedTracee& tracee, pid_t tid, int status) {
  // The kernel sends SIGCHLD unless the tracer's process ignores it
  // explicitly or asked for no stop notices (SA_NOCLDSTOP).
  RecordTask* tracer = record_task(tracee.tracer);
  if (!tracer || tracer->run == RunState::Gone || !tracer->process) return;
  if (tracer->process->sigchld_nocldstop || signal_ignored(tracer->process->pid, SIGCHLD)) return;
  for (const siginfo_t& pending : tracer->redelivering) {
    if (pending.si_signo == SIGCHLD) return;  // one SIGCHLD is pending already
  }
  siginfo_t info{};
  info.si_signo = SIGCHLD;
  info.si_code = CLD_TRAPPED;
  info.si_pid = tid;
  info.si_status = (status >> 8) & 0xffff;
  raise_with_info(*tracer, info);
}

void RecordSession::let_tracees_go(pid_t tid) {
  for (pid_t tracee : ptrace_.tracees_of(tid)) {
    RecordTask* t = record_task(tracee);
    if (t && t->trace_stop_signal && !t->tracer_signal) t->tracer_signal = t->trace_stop_signal;
  }
  ptrace_.forget(tid);
}

void RecordSession::raise_step_trap(RecordTask& t) {
  if (!t.trace_step || !ptrace_.traced_running(t.tid())) return;
  siginfo_t info{};
  info.si_signo = SIGTRAP;
  info.si_code = TRAP_BRKPT;  // as the kernel reports a step over a system call
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

}  // namespace backstep
