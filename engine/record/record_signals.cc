// Signals during recording. A signal becomes an event only where replay can
// place it without a counter: at the faulting instruction (synchronous
// faults, trapped rdtsc), or at an event boundary (right after a syscall or
// another signal, before any user instruction). A signal that arrives while
// user code runs is held back and re-raised at the next syscall entry.
#include <sys/ptrace.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>
#include <x86intrin.h>

#include <cstring>

#include "values/log.h"
#include "engine/core/signals.h"
#include "engine/core/cpuid_trap.h"
#include "engine/core/random_sites.h"
#include "engine/core/tsc_clock.h"
#include "engine/record/record_session.h"
#include "engine/record/tracer_debug_registers.h"

namespace backstep {
namespace {

constexpr uint64_t kRedZone = 128;
constexpr uint64_t kMaxFrame = 64 * 1024;
constexpr uint64_t kAltStackFrame = 16 * 1024;

// Length of the RDTSC or RDTSCP instruction at ip (native, or patched
// where the kernel cannot make it trap: site_patching.h), or 0.
int rdtsc_length(Task& task, uint64_t ip, bool patched) {
  uint8_t insn[3] = {};
  std::size_t n = task.read_some(remote_ptr<void>(ip), insn, sizeof(insn));
  return trapped_tsc_length(insn, n, patched);
}

// Sent by a thread of the process itself (kill, tgkill, sigqueue, raise):
// natively delivered the moment it is unblocked, so never held back at a
// boundary.
bool sent_by_process(const siginfo_t& info, pid_t process) {
  bool user = info.si_code == SI_USER || info.si_code == SI_TKILL || info.si_code == SI_QUEUE;
  return user && info.si_pid == process;
}

bool already_deferred(const RecordTask& t, int sig) {
  for (const siginfo_t& held : t.deferred_signals) {
    if (held.si_signo == sig) return true;
  }
  return false;
}

// What RDRAND or RDSEED leaves in the registers: `value` in the register
// `r` names (a 32-bit write clears the upper half, a 16-bit one keeps it),
// CF set (a number is there), OF, SF, ZF, AF and PF clear.
void set_random_result(Registers& regs, const RandomRequest& r, uint64_t value) {
  static constexpr unsigned long long user_regs_struct::*kByNumber[16] = {
      &user_regs_struct::rax, &user_regs_struct::rcx, &user_regs_struct::rdx, &user_regs_struct::rbx,
      &user_regs_struct::rsp, &user_regs_struct::rbp, &user_regs_struct::rsi, &user_regs_struct::rdi,
      &user_regs_struct::r8,  &user_regs_struct::r9,  &user_regs_struct::r10, &user_regs_struct::r11,
      &user_regs_struct::r12, &user_regs_struct::r13, &user_regs_struct::r14, &user_regs_struct::r15};
  unsigned long long& reg = regs.raw().*kByNumber[r.reg];
  if (r.width == 64) reg = value;
  else if (r.width == 32) reg = value & 0xffffffffu;
  else reg = (reg & ~0xffffull) | (value & 0xffff);
  constexpr unsigned long long kCf = 1, kPf = 1 << 2, kAf = 1 << 4, kZf = 1 << 6, kSf = 1 << 7, kOf = 1 << 11;
  regs.raw().eflags = (regs.raw().eflags & ~(kCf | kPf | kAf | kZf | kSf | kOf)) | kCf;
  regs.set_ip(regs.ip() + static_cast<uint64_t>(r.length));
}

// At a SIGSEGV: a RDRAND or RDSEED patched to fault (random_sites.h),
// answered with the recorder's own random bytes (the registers after it),
// or nullopt for any other instruction.
std::optional<Registers> answer_random_site(Task& task, const Registers& regs) {
  uint8_t code[5] = {};
  std::size_t n = task.read_some(remote_ptr<void>(regs.ip()), code, sizeof(code));
  std::optional<RandomRequest> r = patched_random_site(code, n);
  if (!r) return std::nullopt;
  uint64_t value = 0;
  if (getrandom(&value, sizeof(value), 0) != sizeof(value)) value = __rdtsc();  // never short for 8 bytes
  Registers after = regs;
  set_random_result(after, *r, value);
  return after;
}

}  // namespace

void RecordSession::on_signal(RecordTask& t, int sig) {
  Task& task = t.task;
  siginfo_t info = task.siginfo();
  for (auto it = t.redelivering.begin(); it != t.redelivering.end(); ++it) {
    if (it->si_signo == sig) {
      // Our own re-raise: give the program the siginfo it was sent.
      info = *it;
      task.set_siginfo(info);
      t.redelivering.erase(it);
      break;
    }
  }
  Registers regs = task.regs();

  if (sig == SIGTRAP && info.si_code == TRAP_HWBKPT && !tracer_debug::tracers_trap(t, ptrace_.tracee(t.tid()))) {
    // The recorder's own instruction breakpoint (the one-pass probe of a
    // forced position, forced_position.cc), whose trap was still queued when
    // the probe ended another way. A program cannot arm debug registers on
    // itself: only its tracer can (a recorded one's hits stop it for that
    // tracer, below).
    BS_LOG(Record, "thread " << t.tid() << ": dropping a late trap of the position probe");
    task.set_debug_register(6, task.debug_register(6) & ~uint64_t{1});
    task.resume(ResumeHow::Syscall);
    return;
  }

  if (sig == SIGSEGV && info.si_code == SI_KERNEL) {
    // A patched RDRAND or RDSEED, always answered.
    std::optional<Registers> random = answer_random_site(task, regs);
    // The program's own PR_TSC_SIGSEGV: its rdtsc faults, as natively.
    // A stub's traced path holds an rdtscp as `int 0x2f; nop`.
    bool patched = site_patcher_.enabled() || (t.process && t.process->in_stub_area(regs.ip()));
    int len = random || t.tsc_faults ? 0 : rdtsc_length(task, regs.ip(), patched);
    // CPUID faulting, or a patched cpuid (cpuid_trap.h): answered, unless
    // the program asked for the fault itself (then it is the program's
    // SIGSEGV, below).
    bool cpuid = !random && !len && !disguise_.program_cpuid_faulting &&
                 is_cpuid_at(task, regs.ip(), site_patcher_.patches_cpuid());
    if (random || len || cpuid) {
      Registers after = regs;
      if (random) {
        after = *random;
      } else if (cpuid) {
        // Faulting hides what replay could not repeat; a patched site
        // answers what the CPU says, as natively.
        after = cpuid_answers_.emulate(task, regs, /*hide=*/disguise_.cpuid_faulting);
      } else {
        unsigned aux = 0;
        uint64_t tsc = len == 3 ? __rdtscp(&aux) : __rdtsc();
        // Where the kernel makes rdtsc fault, the library's reads come from
        // the clock (tsc_clock.h): so do these.
        if (!site_patcher_.enabled()) tsc = TscClock::recording().now();
        after.raw().rax = tsc & 0xffffffffu;
        after.raw().rdx = tsc >> 32;
        if (len == 3) after.raw().rcx = aux;
        after.set_ip(regs.ip() + static_cast<uint64_t>(len));
      }
      trace::Event event;
      event.kind = trace::EventKind::Rdtsc;
      event.tid = static_cast<uint32_t>(task.tid());
      event.regs = regs.to_block();
      // From now on the library reads the counter at this site, if it can.
      if (len) buffer_tsc_site(t, after, event);
      if (random) {
        task.set_regs(after);  // the flags too
      } else {
        task.set_regs_up_to_ip(after);  // rax, rbx, rcx, rdx and rip are all rdtsc and cpuid change
      }
      event.reg_changes = after.changes_since(regs);
      write_event(event);
      t.reached_boundary(after);
      // An event boundary: a signal held back can be delivered right here,
      // and another thread can take its turn, as after a system call (a
      // thread that reads the counter in a loop, trapping each time, would
      // otherwise never let the others run).
      bool held = !t.deferred_signals.empty();
      redeliver_deferred(t);
      if (held) {
        task.resume(ResumeHow::Syscall);
      } else {
        resume_or_switch(t);
      }
      return;
    }
  }

  bool at_boundary = t.at_syscall_boundary && Registers::differences(t.last_exit_regs, regs).empty();
  if (at_boundary && t.boundary_after_sigreturn && !sent_by_process(info, process_of(task))) {
    // A handler just returned, and a timer's signal (or another process's)
    // is there again: the code the handler interrupted runs first, with the
    // signal held back. Natively it would have run for the whole period; a
    // timer faster than the recorder's handling of one signal (100 us)
    // would otherwise call the handler back to back for ever.
    at_boundary = false;
  }
  if (!is_synchronous_fault(info) && !at_boundary) {
    // A buffered call it interrupted goes the traced way, where the signal
    // is delivered (record_desched.cc); one that raised it as it failed
    // raises it again there, so this copy is dropped.
    if (abandon_interrupted_call(t, &info) == Abandoned::RaisesSignal) {
      BS_LOG(Record, "dropping signal " << sig << ": the traced call raises it again");
      task.resume(ResumeHow::Syscall);
      return;
    }
    hold_back_signal(t, info);
    task.resume(ResumeHow::Syscall);
    return;
  }

  // A traced thread stops for its tracer instead (record_tracees.cc).
  // A single step's trap does not recur in replay: no signal can be
  // delivered there.
  if (ptrace_.traced_running(t.tid()) && stop_for_tracer(t, info, at_boundary)) return;
  deliver_signal(t, info, regs);
}

void RecordSession::deliver_signal(RecordTask& t, const siginfo_t& info, const Registers& regs) {
  Task& task = t.task;
  int sig = info.si_signo;
  switch (signal_action(task.tid(), sig)) {
    case SignalAction::Ignore:
      task.resume(tracee_resume_how(t));  // a tracee its tracer steps steps on
      return;
    case SignalAction::Stop:
      // Job control: the kernel stops the process (a group-stop, which its
      // parent's waitpid(WUNTRACED) sees); the recorder then waits for the
      // SIGCONT that ends it (on_group_stop). Replay has nothing to do: the
      // stopped threads simply have no events meanwhile.
      task.resume(ResumeHow::Syscall, sig);
      return;
    case SignalAction::Handler:
      deliver_to_handler(t, info, regs);
      return;
    case SignalAction::Terminate: {
      trace::Event event;
      event.kind = trace::EventKind::FatalSignal;
      event.tid = static_cast<uint32_t>(task.tid());
      event.regs = regs.to_block();
      event.siginfo = siginfo_bytes(info);
      event.status = sig;
      write_event(event);
      if (t.process) t.process->exiting = true;
      task.resume(ResumeHow::Continue, sig);  // the next wait sees it die
      return;
    }
  }
}

void RecordSession::deliver_to_handler(RecordTask& t, const siginfo_t& info, const Registers& before) {
  Task& task = t.task;
  // Single-stepping into the delivery stops at the handler's first
  // instruction, with the frame written: exactly what replay must recreate.
  task.resume(ResumeHow::SingleStep, info.si_signo);
  WaitStatus ws = task.wait();
  while (ws.kind == WaitStatus::Kind::EventStop && ws.event == PTRACE_EVENT_STOP) {
    // Our interrupt, sent just as the program stopped for this signal, or
    // the kernel's SIGCONT notice to a seizing tracer, comes once the frame
    // is written and before the step's trap: step on.
    t.interrupt_pending = false;
    task.resume(ResumeHow::SingleStep);
    ws = task.wait();
  }
  if (ws.is_gone()) {
    throw TaskGone("the program died while signal " + std::to_string(info.si_signo) +
                   " was delivered: " + ws.describe());
  }
  if (ws.is_signal() && ws.signal == SIGSEGV && task.regs().ip() == before.ip()) {
    // The kernel could not write the signal's frame: the stack has no room
    // left (a stack overflow, with a handler but no alternate stack) or the
    // alternate stack is unusable. It forces a SIGSEGV instead, with that
    // signal's handler reset to the default when SIGSEGV was the one being
    // delivered (the process then dies of it), and stops here for it: a
    // signal like any other. Replay reaches the same instruction and fault.
    // A debugger sees the signal stop twice, as natively: the signal it
    // passed (its stop written here with no effect: a fault recurs where
    // replay runs the instruction again, and is passed over), then the
    // forced SIGSEGV.
    BS_LOG(Record, "signal " << info.si_signo << " could not be delivered: the kernel forces SIGSEGV");
    write_event(signal_event(t, info, before));
    on_signal(t, SIGSEGV);
    return;
  }
  if (!ws.is_signal() || ws.signal != SIGTRAP) {
    throw RecordingRefused("delivering signal " + std::to_string(info.si_signo) +
                           " did not reach its handler (" + ws.describe() + ")");
  }
  Registers after = without_trap_flags(task.regs());  // our single-step, not the program's

  trace::Event event = signal_event(t, info, before);
  event.reg_changes = after.changes_since(before);
  trace::MemoryWrite frame;
  frame.addr = after.sp();
  uint64_t len = before.sp() > after.sp() && before.sp() - after.sp() <= kMaxFrame
                     ? before.sp() - after.sp()
                     : kAltStackFrame;  // on a sigaltstack: over-record, it is harmless
  (void)kRedZone;
  frame.data.resize(len);
  frame.data.resize(task.read_some(remote_ptr<void>(frame.addr), frame.data.data(), len));
  event.writes.push_back(std::move(frame));
  event.xstate = task.xstate();
  write_event(event);
  t.reached_boundary(after);
  // A tracee its tracer single-stepped into the delivery stops at the
  // handler's first instruction, as the kernel reports it.
  raise_step_trap(t, true);
  task.resume(ResumeHow::Syscall);
}

trace::Event RecordSession::signal_event(RecordTask& t, const siginfo_t& info, const Registers& regs) {
  trace::Event event;
  event.kind = trace::EventKind::Signal;
  event.tid = static_cast<uint32_t>(t.tid());
  event.regs = regs.to_block();
  event.siginfo = siginfo_bytes(info);
  event.status = info.si_signo;
  return event;
}

void RecordSession::hold_back_signal(RecordTask& t, const siginfo_t& info) {
  int sig = info.si_signo;
  if (sig < SIGRTMIN && already_deferred(t, sig)) {
    // A standard signal that comes again while one is pending merges with
    // it, as the kernel merges them (a fast timer's, every 2 ms).
    BS_LOG(Record, "signal " << sig << " merges with the one held back");
    return;
  }
  BS_LOG(Record, "deferring signal " << sig << " to the next syscall");
  t.deferred_signals.push_back(info);
  want_forced_position(t);
}

void RecordSession::redeliver_deferred(RecordTask& t) {
  cancel_forced_position(t);
  // Pending again before the syscall runs, so each is delivered when the
  // call returns (or interrupts it): an event boundary.
  for (const siginfo_t& info : t.deferred_signals) raise_with_info(t, info);
  t.deferred_signals.clear();
}

void RecordSession::raise_with_info(RecordTask& t, const siginfo_t& info) {
  // To the thread itself: tgkill's first argument is its thread group.
  pid_t group = t.process ? t.process->pid : t.tid();
  if (syscall(SYS_tgkill, group, t.tid(), info.si_signo) != 0) {
    BS_LOG(Record, "thread " << t.tid() << ": cannot raise signal " << info.si_signo << ": " << strerror(errno));
  }
  t.redelivering.push_back(info);
}

}  // namespace backstep
