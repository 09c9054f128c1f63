// Recording threads, one at a time (shared/notes/threads-and-processes.md §2).
//
// Exactly one thread runs user code (current_). The others sit at a ptrace
// stop, or inside a system call that may block (blocking_calls.h), which the
// kernel runs while the current thread goes on. The recorder hands the CPU
// on when the current thread
//  - enters a call that may block while other threads exist: a
//    SyscallEntered event marks where it stopped running; its Syscall event
//    (results, memory) is written when the scheduler next lets it continue,
//    which is the point replay applies them;
//  - ends (exit), or the whole program ends;
//  - has run kSliceMs since it was scheduled while another thread waits:
//    at its next system call exit, or, if it makes none (a spin on a flag
//    another thread sets), at a forced position (forced_position.cc);
//  - calls sched_yield while another thread waits.
// Threads take turns in order of their ids after the last one that ran.
// Replay follows the trace, so whatever order the recorder chose is the
// order replayed.
#include <linux/futex.h>
#include <sched.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include <cstring>
#include <ctime>

#include <chrono>

#include "values/log.h"
#include "engine/core/state_digest.h"
#include "engine/record/blocking_calls.h"
#include "engine/record/record_session.h"

namespace backstep {
namespace {

constexpr uint64_t kSliceNs = 20'000'000;
// How long the scheduler waits for a thread in the kernel while the others
// only spin, before it lets a spinner run anyway (a signal may be pending
// for it, which only shows once it runs).
constexpr uint64_t kIdleNs = 50'000'000;

// Gives the CPU (which the recorder shares with the program) to a thread
// that is in the middle of a futex operation, while the recorder watches
// for its outcome with a deadline. sched_yield would not: the scheduler
// may pick the recorder again at once.
void pause_briefly() {
  timespec ts{0, 20'000};
  nanosleep(&ts, nullptr);
}

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

RecordTask& RecordSession::add_record_task(pid_t tid) {
  Task* task = find_task(tid);
  if (!task) task = &add_task(tid);
  task->set_seccomp_syscalls(buffering());
  auto& slot = record_tasks_[tid];
  slot = std::make_unique<RecordTask>(*task);
  auto early = early_statuses_.find(tid);
  if (early != early_statuses_.end()) {
    for (const WaitStatus& ws : early->second) task->keep_status(ws);
    early_statuses_.erase(early);
  }
  return *slot;
}

void RecordSession::start_created_thread() {
  CreatedThread c = *created_;
  created_.reset();
  // Every new task, thread or process, is announced here, before it runs.
  descriptors_.created(c.parent, c.tid, c.flags);
  RecordTask& t = add_record_task(c.tid);
  // Its first stop: PTRACE_EVENT_STOP, as for every task a seized tracee
  // creates.
  WaitStatus ws = t.task.wait();
  if (ws.kind != WaitStatus::Kind::EventStop || ws.event != PTRACE_EVENT_STOP) {
    throw TaskGone("the new task " + std::to_string(c.tid) + " did not start: " + ws.describe());
  }
  t.task.open_memory();
  t.run = RunState::Stopped;
  RecordTask* creator = record_task(c.parent);
  if (creator) t.tsc_faults = creator->tsc_faults;
  if (!(c.flags & CLONE_THREAD)) {
    start_created_process(c, t);
    return;
  }
  t.process = creator ? creator->process : nullptr;
  // Under a filter of the program's, every call of its threads stops at
  // its entry (program_seccomp.cc), a new thread's too.
  if (t.process && t.process->own_filter) t.task.set_syscall_stops(true);
  // A thread that shares its creator's TLS shares its syscall buffer; one
  // with its own TLS registers its own before it buffers anything.
  if (creator) t.buffer = creator->buffer;
  if (c.flags & CLONE_CHILD_CLEARTID) t.clear_child_tid = c.child_tid_addr;
  trace::Event event;
  event.kind = trace::EventKind::ThreadStart;
  event.tid = static_cast<uint32_t>(c.tid);
  event.regs = t.task.regs().to_block();
  event.xstate = t.task.xstate();
  event.status = c.parent;
  write_event(event);
}

std::size_t RecordSession::live_threads() const {
  std::size_t n = 0;
  for (const auto& [tid, t] : record_tasks_) n += t->run != RunState::Gone;
  return n;
}

bool RecordSession::others_waiting(const RecordTask& t) const {
  for (const auto& [tid, other] : record_tasks_) {
    if (other.get() == &t) continue;
    if (other->run == RunState::Stopped && !ptrace_.holds(tid) && !other->held_wait) return true;
  }
  return false;
}

RecordTask* RecordSession::pick_next(bool any) {
  if (record_tasks_.empty()) return nullptr;
  auto start = record_tasks_.upper_bound(last_scheduled_);
  uint64_t now = chaos_ ? now_ns() : 0;
  RecordTask* starved = nullptr;  // passed over for now (record --chaos)
  if (chaos_) start = std::next(record_tasks_.begin(), static_cast<long>(chaos_->first_candidate(record_tasks_.size())));
  RecordTask* spinner = nullptr;
  std::map<const RecordProcess*, uint64_t> digests;  // each process's state now, computed once
  bool in_kernel = false;
  for (int pass = 0; pass < 2; ++pass) {
    auto begin = pass == 0 ? start : record_tasks_.begin();
    auto end = pass == 0 ? record_tasks_.end() : start;
    for (auto it = begin; it != end; ++it) {
      RecordTask& t = *it->second;
      in_kernel |= t.run == RunState::InKernel;
      if (t.run != RunState::Stopped || exiting(t)) continue;
      // In an emulated ptrace stop, or a wait for one (record_tracees.cc).
      if (ptrace_.holds(t.tid()) || t.held_wait) continue;
      if (chaos_ && t.starved_until_ns > now && !t.task.has_kept_status()) {
        if (!starved) starved = &t;
        continue;
      }
      if (any || !t.spin_digest || t.task.has_kept_status()) return &t;
      // A spinner whose state has not changed would only spin again.
      auto digest = digests.find(t.process);
      if (digest == digests.end()) {
        digest = digests.emplace(t.process, state_digest(t.task, t.task.xstate()).combined()).first;
      }
      if (digest->second != *t.spin_digest) return &t;
      if (!spinner) spinner = &t;
    }
  }
  // A starved thread runs when no other can: starving it never stops the
  // program.
  if (starved && !spinner) return starved;
  // Only unchanged spinners: wait for a thread in the kernel, if there is
  // one (the main loop comes back with `any` if that takes long).
  return in_kernel ? nullptr : spinner;
}

bool RecordSession::schedule(bool any) {
  RecordTask* next = pick_next(any);
  if (!next) {
    // Every thread is in the kernel, or spins on a state nothing changed:
    // wait for one in the kernel.
    if (idle_since_ns_ == 0) idle_since_ns_ = now_ns();
    return false;
  }
  idle_since_ns_ = 0;
  current_ = next;
  last_scheduled_ = next->tid();
  next->since_ns = now_ns();
  next->probed = false;
  if (chaos_) {
    next->slice_ns = chaos_->slice_ns();
    uint64_t starve = chaos_->starvation_ns();
    next->starved_until_ns = starve ? next->since_ns + starve : 0;
    if (!next->handover_count && !next->parked_count && chaos_->hand_over_anywhere()) next->count_site.reset();
  }
  next->spin_digest.reset();
  next->run = RunState::Running;
  BS_LOG(Record, "thread " << next->tid() << " runs");
  if (next->task.has_kept_status()) return handle_stop(*next, next->task.wait());
  // What its tracer's changes at its last emulated stop needed is done.
  bool changed = std::exchange(next->stop_changed, false);
  next->stop_mark.reset();
  next->stop_inexact = nullptr;
  // After an event stop at a call's exit, the exit's own stop.
  if (std::exchange(next->exit_stop_pending, false) && stop_at_syscall_exit(*next)) return false;
  if (next->trace_stop_signal || next->tracer_signal) {
    resume_traced(*next, changed);  // its tracer let it go on (record_tracees.cc)
    return false;
  }
  try {
    // A tracee its tracer single-steps (record_tracees.cc) runs one
    // instruction, its own (no counting stub in its way).
    if (!next->trace_step) start_handover_count(*next);
    next->task.resume(tracee_resume_how(*next));
  } catch (const TaskGone& e) {
    // A SIGKILL (from another process of the tree, or from outside) took it
    // out of the ptrace stop it waited in for its turn: it is dying, and its
    // death is its next status.
    BS_LOG(Record, "thread " << next->tid() << " could not resume: " << e.what());
    WaitStatus ws = next->task.wait();
    if (!ws.is_gone()) throw;
    return on_task_gone(*next, ws);
  }
  return false;
}

bool RecordSession::idle_too_long() const {
  return idle_since_ns_ != 0 && now_ns() - idle_since_ns_ >= kIdleNs;
}

void RecordSession::resume_or_switch(RecordTask& t) {
  bool yielded = t.last_exit_regs.syscallno() == SYS_sched_yield;
  uint64_t slice = t.slice_ns ? t.slice_ns : kSliceNs;
  bool early = chaos_ && chaos_->hand_over_early();
  if (&t == current_ && others_waiting(t) && (yielded || early || now_ns() - t.since_ns >= slice)) {
    BS_LOG(Record, "thread " << t.tid() << " hands over");
    t.run = RunState::Stopped;
    current_ = nullptr;
    return;
  }
  t.task.resume(ResumeHow::Syscall);
}

void RecordSession::end_thread(RecordTask& t) {
  // exit(2) of one thread among others: the kernel zeroes its
  // clear-child-tid word and wakes that futex as it dies. Wait for the death
  // before anyone else runs, so that the write happens at this point.
  t.task.resume(ResumeHow::Syscall);
  WaitStatus ws = t.task.wait();
  if (!ws.is_gone()) throw TaskGone("thread " + std::to_string(t.tid()) + " did not end: " + ws.describe());
  trace::Event event;
  event.kind = trace::EventKind::ThreadExit;
  event.tid = static_cast<uint32_t>(t.tid());
  if (t.clear_child_tid) event.writes.push_back({t.clear_child_tid, std::vector<uint8_t>(4, 0)});
  if (t.robust_list) record_robust_futexes(t, event);
  write_event(event);
  t.end_written = true;
  t.run = RunState::Gone;
  if (current_ == &t) current_ = nullptr;
  let_tracees_go(t, ws.raw);  // a traced thread's tracer hears of its end (record_tracees.cc)
  wake_tracers();
}

void RecordSession::record_robust_futexes(RecordTask& t, trace::Event& event) {
  // The kernel has walked the dead thread's robust list and set
  // FUTEX_OWNER_DIED in each futex word it still owned. The list lives in
  // memory the other threads share: walk it too and record every word on
  // it as it is now.
  Task* reader = nullptr;
  for (auto& [tid, other] : record_tasks_) {
    if (other.get() != &t && other->process == t.process && other->run != RunState::Gone) reader = &other->task;
  }
  if (!reader) return;
  struct RobustHead {
    uint64_t next;
    int64_t futex_offset;
    uint64_t pending;
  } head{};
  if (reader->read_some(remote_ptr<void>(t.robust_list), &head, sizeof(head)) != sizeof(head)) return;
  // Bit 0 of a list pointer marks a PI futex; the entry is the rest.
  auto record_word = [&](uint64_t entry) {
    uint64_t word = (entry & ~uint64_t{1}) + static_cast<uint64_t>(head.futex_offset);
    std::vector<uint8_t> value(4);
    if (reader->read_some(remote_ptr<void>(word), value.data(), 4) == 4) event.writes.push_back({word, value});
  };
  constexpr int kMaxEntries = 2048;  // the kernel's own limit (ROBUST_LIST_LIMIT)
  uint64_t entry = head.next;
  for (int i = 0; i < kMaxEntries && (entry & ~uint64_t{1}) != t.robust_list && entry != 0; ++i) {
    record_word(entry);
    if (reader->read_some(remote_ptr<void>(entry & ~uint64_t{1}), &entry, 8) != 8) break;
  }
  if (head.pending) record_word(head.pending);
}

bool RecordSession::pi_lock_waits(RecordTask& t, uint64_t uaddr, trace::Event& entered) {
  // A priority-inheritance lock that is taken: the kernel sets
  // FUTEX_WAITERS in the futex word before the thread sleeps, so that the
  // owner's unlock goes through the kernel. Whoever runs next sees that bit:
  // record the word as the kernel left it with the SyscallEntered event.
  // Only this thread runs now, so nothing else changes the word meanwhile.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(100);
  uint32_t word = 0;
  for (;;) {
    std::optional<WaitStatus> done = t.task.poll_status();
    if (done) {
      // The call returned (the lock was free after all) or a signal came:
      // the thread goes on as after any call.
      t.task.keep_status(*done);
      return false;
    }
    if (t.task.read_some(remote_ptr<void>(uaddr), &word, 4) != 4) break;
    if ((word & FUTEX_WAITERS) || std::chrono::steady_clock::now() > deadline) break;
    pause_briefly();  // the thread is on its way into the kernel's wait
  }
  std::vector<uint8_t> bytes(4);
  std::memcpy(bytes.data(), &word, 4);
  entered.writes.push_back({uaddr, bytes});
  return true;
}

bool RecordSession::route_status(const TaskStatus& given) {
  TaskStatus ts = given;
  RecordTask* stopped = record_task(ts.tid);
  if (!stopped) {
    early_statuses_[ts.tid].push_back(ts.status);
    return false;
  }
  if (!stopped->task.note_status(ts.status)) return false;
  return stopped == current_ ? handle_stop(*stopped, ts.status) : on_other_status(*stopped, ts.status);
}

void RecordSession::flush_completed_calls(RecordTask& running) {
  // The kernel writes a blocking call's results while other threads run
  // user code. The running thread (or a position's digest) may already see
  // them: so a call the kernel has finished gets its event now, ahead of the
  // running thread's next one, and replay writes the results no later. The
  // thread itself stays stopped at the call's exit until its turn.
  while (std::optional<TaskStatus> ts = poll_any()) {
    RecordTask* t = record_task(ts->tid);
    if (t && !t->task.note_status(ts->status)) continue;
    if (!t || t == &running) {
      // A new thread's first stop, or (cannot happen) our own: keep it.
      if (!t) early_statuses_[ts->tid].push_back(ts->status);
      else t->task.keep_status(ts->status);
      continue;
    }
    on_other_status(*t, ts->status);
  }
  for (auto& [tid, t] : record_tasks_) {
    if (t.get() == &running || t->run != RunState::Stopped || !t->in_syscall) continue;
    std::optional<WaitStatus> kept = t->task.peek_kept_status();
    if (!kept || !kept->is_syscall()) continue;
    t->task.wait();  // takes the kept status
    BS_LOG(Record, "thread " << tid << ": its call returned while another ran");
    on_syscall_exit(*t, /*resume=*/false);
  }
}

bool RecordSession::on_other_status(RecordTask& t, const WaitStatus& ws) {
  // Its process is ending (exit_group, a fatal signal, SIGKILL): the
  // first thread's status is the process's.
  if (ws.is_gone()) return on_task_gone(t, ws);
  if (ws.kind == WaitStatus::Kind::EventStop && ws.event == PTRACE_EVENT_EXEC) {
    // Another thread of t's process exec'd and took the process's id (t's):
    // it is the one running now, under this id (record_processes.cc).
    if (current_ && current_ != &t) current_->run = RunState::Stopped;
    current_ = &t;
    t.run = RunState::Running;
    return handle_stop(t, ws);
  }
  t.task.keep_status(ws);
  if (t.run == RunState::InKernel) t.run = RunState::Stopped;
  return false;
}

}  // namespace backstep
