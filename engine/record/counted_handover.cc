// Counted hand-overs: positions that replay finds exactly, without a state
// digest or a stored state (shared/notes/counterless-progress.md §4).
//
// A thread that computes without system calls while another waits is
// handed over at a forced position (forced_position.cc). The first time,
// the position is named by a digest of the program's state at the
// instruction where the recorder stopped it, and the thread's count site
// becomes that instruction: hot loops come back. From then on, when the
// scheduler lets the thread run, a counting stub (engine/core/counting_stub.h)
// counts its arrivals at the site in the thread itself, at about a
// nanosecond each; when its slice ends, the recorder sets the countdown to
// one and lets it run to its next arrival. The position is then (site,
// arrivals since the thread's previous event): replay arms the same stub
// with that countdown and runs at native speed to it
// (engine/replay/replay_counted_position.cc).
//
// The count is only valid while the thread runs alone from its previous
// event: any other stop of the thread (a system call, a signal to deliver,
// the desched interrupt of a blocked buffered call) ends it before anything
// is recorded there, and the next position of that slice is a digest one.
// Ending it puts the code back at once (a memory write); unmapping the
// stub's pages needs a system call injected into the thread, and at a
// system call's entry stop the injected one would replace the program's,
// so there the thread is wound back to its syscall instruction after the
// unmap and makes its call again. At a signal's stop, the pages stay
// mapped (parked, unused) until the thread's next stop.
//
// Only code mapped from a file is counted: code made at run time (a JIT)
// may be rewritten under the jump.
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "values/log.h"
#include "engine/core/proc_maps.h"
#include "engine/core/signals.h"
#include "engine/core/state_digest.h"
#include "engine/core/tool_page.h"
#include "engine/core/x86_decoder.h"
#include "engine/record/record_session.h"

namespace backstep {
namespace {

using Clock = std::chrono::steady_clock;

// How long the thread may take to come back to its count site once its
// slice is over; after that the position is a digest one.
constexpr auto kArrivalLimit = std::chrono::milliseconds(20);
// Slices in a row that ended at an event before the count was used: the
// thread no longer loops at its site, and arming it costs two injected
// system calls per slice.
constexpr int kMaxMisses = 2;


// Whether the two bytes before `ip` are a system call instruction (syscall
// or int 0x80) the thread can be wound back to.
bool after_syscall_insn(Task& task, uint64_t ip) {
  uint8_t b[2] = {};
  if (task.read_some(remote_ptr<void>(ip - 2), b, 2) != 2) return false;
  return x86::is_syscall_instruction(b, false);
}

}  // namespace

bool RecordSession::counting_enabled() {
  static const bool enabled = [] {
    const char* v = std::getenv("BACKSTEP_COUNTED_HANDOVERS");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return enabled;
}

bool RecordSession::count_site_possible(RecordTask& t, uint64_t ip, const std::vector<MapsEntry>& maps) {
  if (!counting_enabled() || !t.process || t.process->own_filter) return false;
  bool from_file = false;
  for (const MapsEntry& m : maps) {
    if (ip < m.start || ip >= m.end) continue;
    // Code from a file, not backstep's own library.
    from_file = m.inode != 0 && m.name.find("libbackstep_preload") == std::string::npos;
    break;
  }
  return from_file && CountingStub::possible(t.task, ip, maps);
}

bool RecordSession::remember_count_site(RecordTask& t, uint64_t ip) {
  t.count_site.reset();
  t.count_misses = 0;
  if (!counting_enabled() || !t.process || t.process->own_filter) return false;
  if (!count_site_possible(t, ip, read_proc_maps(t.tid()))) return false;
  t.count_site = ip;
  return true;
}

void RecordSession::start_handover_count(RecordTask& t) {
  if (!t.count_site || t.handover_count || t.parked_count || t.in_syscall || t.task.has_kept_status()) return;
  if (in_buffered_call(t)) return;
  std::vector<siginfo_t> held;
  std::optional<CountingStub> stub = CountingStub::arm(t.task, *t.count_site, CountingStub::kNoStop, &held);
  for (const siginfo_t& info : held) hold_back_signal(t, info);
  if (!stub) {
    t.count_site.reset();
    return;
  }
  uint64_t ip = t.task.regs().ip();
  if (stub->patches(ip) && ip != stub->addr()) {
    // It stands inside the code the jump covers.
    held.clear();
    stub->disarm(t.task, &held);
    for (const siginfo_t& info : held) hold_back_signal(t, info);
    t.count_site.reset();
    return;
  }
  BS_LOG(Record, "thread " << t.tid() << ": counting arrivals at 0x" << std::hex << *t.count_site);
  t.handover_count = std::move(stub);
}

void RecordSession::end_handover_count(RecordTask& t) {
  if (!t.handover_count) return;
  CountingStub stub = std::move(*t.handover_count);
  t.handover_count.reset();
  std::vector<siginfo_t> held;
  stub.leave(t.task, held);
  for (const siginfo_t& info : held) hold_back_signal(t, info);
  stub.put_code_back(t.task);
  t.parked_count = std::move(stub);
  if (++t.count_misses >= kMaxMisses) t.count_site.reset();
}

std::optional<WaitStatus> RecordSession::settle_handover_count(RecordTask& t, const WaitStatus& ws) {
  if (ws.is_gone()) {
    t.handover_count.reset();
    t.parked_count.reset();
    return std::nullopt;
  }
  bool interrupt = ws.kind == WaitStatus::Kind::EventStop && ws.event == PTRACE_EVENT_STOP && t.interrupt_pending &&
                   !t.desched_pending;
  if (t.handover_count) {
    // The recorder's own interrupt for a hand-over: counted_handover().
    if (interrupt) return std::nullopt;
    // A signal that will be held back: the thread runs on where it was.
    if (ws.kind == WaitStatus::Kind::SignalStop && !is_synchronous_fault(t.task.siginfo())) return std::nullopt;
    end_handover_count(t);
  }
  if (!t.parked_count) return std::nullopt;
  if (ws.kind == WaitStatus::Kind::SignalStop) return std::nullopt;  // its signal would be lost
  if (ws.kind == WaitStatus::Kind::EventStop && (ws.event != PTRACE_EVENT_STOP || in_buffered_call(t))) {
    return std::nullopt;  // inside a call
  }
  std::vector<siginfo_t> held;
  bool entry = ws.is_syscall() && !t.in_syscall;
  Registers at = t.task.regs();
  if (entry && !after_syscall_insn(t.task, at.ip())) return std::nullopt;
  CountingStub stub = std::move(*t.parked_count);
  t.parked_count.reset();
  int64_t r = t.task.remote_syscall(kToolSyscallInsn, SYS_munmap, {stub.page(), stub.pages(), 0, 0, 0, 0}, &held);
  for (const siginfo_t& info : held) hold_back_signal(t, info);
  if (r != 0) BS_LOG(Record, "thread " << t.tid() << ": unmapping a counting stub failed: " << r);
  if (!entry) return std::nullopt;
  // The injected call took the place of the program's: back to its
  // syscall instruction, to make it again.
  Registers again = at;
  again.set_ip(at.ip() - 2);
  again.raw().rax = at.syscallno();
  t.task.set_regs(again);
  t.task.resume(ResumeHow::Syscall);
  return t.task.wait();
}

std::optional<bool> RecordSession::counted_handover(RecordTask& t, bool signal, bool probe) {
  Task& task = t.task;
  CountingStub& stub = *t.handover_count;
  std::vector<siginfo_t> held;
  stub.leave_count(task, held);
  for (const siginfo_t& info : held) hold_back_signal(t, info);
  // Runs the thread to its next arrival at the site: true there (stopped
  // at the stub's trap), false at another stop (in `ws`), nullopt if it
  // did not come back in time (stopped by an interrupt, the count ended).
  std::optional<WaitStatus> ws;
  auto next_arrival = [&]() -> std::optional<bool> {
    stub.set_countdown(task, 1);
    task.resume(ResumeHow::Syscall);
    const Clock::time_point deadline = Clock::now() + kArrivalLimit;
    ws = wait_with_deadline(task, deadline);
    while (ws && ws->is_signal() && !(ws->signal == SIGTRAP && stub.trapped_at(task.regs().ip()))) {
      siginfo_t info = task.siginfo();
      if (is_synchronous_fault(info)) break;
      hold_back_signal(t, info);
      task.resume(ResumeHow::Syscall);
      ws = wait_with_deadline(task, deadline);
    }
    if (ws) return ws->is_signal() && ws->signal == SIGTRAP && stub.trapped_at(task.regs().ip());
    task.interrupt();
    t.interrupt_pending = true;
    t.interrupt_sent_ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count());
    ws = task.wait();
    if (ws->kind != WaitStatus::Kind::EventStop || ws->event != PTRACE_EVENT_STOP) return false;
    t.interrupt_pending = false;
    return std::nullopt;
  };
  // Past the trap: the arrival goes on with the moved instructions.
  auto go_on = [&](Registers regs) {
    regs.set_ip(stub.moved_start());
    task.set_regs(regs);
  };

  std::optional<bool> arrived = next_arrival();
  std::optional<Registers> previous;
  if (arrived && *arrived && probe) {
    // Early in the slice: hand over now only if the thread spins, going
    // round its loop without changing a register.
    previous = without_trap_flags(task.regs());
    go_on(task.regs());
    arrived = next_arrival();
    if (arrived && *arrived && without_trap_flags(task.regs()).to_block() != previous->to_block()) {
      go_on(task.regs());
      stub.set_countdown(task, CountingStub::kNoStop);
      t.probed = true;
      task.resume(ResumeHow::Syscall);
      return false;
    }
  }
  if (!arrived) {
    // Not back at the site in time: the thread left the loop.
    t.count_site.reset();
    end_handover_count(t);
    if (in_buffered_call(t)) {
      request_yield(t);
      task.resume(ResumeHow::Syscall);
      return false;
    }
    settle_handover_count(t, *ws);  // unmaps the parked pages
    return std::nullopt;             // a digest position here
  }
  // A system call, a fault or an exit came first: the hand-over happens
  // there, the usual way (handle_stop ends the count).
  if (!*arrived) return handle_stop(t, *ws);

  Registers here = task.regs();
  here.set_ip(stub.addr());
  here = without_trap_flags(here);
  task.set_regs(here);
  uint64_t arrivals = stub.arrivals(task);
  CountingStub done = std::move(*t.handover_count);
  t.handover_count.reset();
  held.clear();
  done.disarm(task, &held);  // a timer's signal may come on the way to the munmap
  for (const siginfo_t& info : held) hold_back_signal(t, info);
  t.count_misses = 0;
  BS_LOG(Record, "counted position at 0x" << std::hex << here.ip() << std::dec << ", arrival " << arrivals
                                          << (previous ? " (spinning)" : ""));
  trace::Event event;
  event.kind = trace::EventKind::Position;
  event.tid = static_cast<uint32_t>(task.tid());
  event.regs = here.to_block();
  event.position = trace::ForcedPosition{};
  event.position->arrivals = arrivals;
  write_event(event);
  ++result_.forced_positions;
  ++result_.counted_positions;
  std::optional<uint64_t> spin;
  if (previous && !signal) spin = state_digest(task, task.xstate()).combined();
  return hand_over_at_position(t, here, signal, spin);
}

}  // namespace backstep
