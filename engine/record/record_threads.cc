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
#include <sys/syscall.h>

#include <chrono>

#include "engine/core/log.h"
#include "engine/core/state_digest.h"
#include "engine/record/record_session.h"

namespace backstep {
namespace {

constexpr uint64_t kSliceNs = 20'000'000;
// How long the scheduler waits for a thread in the kernel while the others
// only spin, before it lets a spinner run anyway (a signal may be pending
// for it, which only shows once it runs).
constexpr uint64_t kIdleNs = 50'000'000;

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

RecordTask& RecordSession::add_record_task(pid_t tid) {
  Task* task = find_task(tid);
  if (!task) task = &add_task(tid);
  auto& slot = record_tasks_[tid];
  slot = std::make_unique<RecordTask>(*task);
  auto early = early_statuses_.find(tid);
  if (early != early_statuses_.end()) {
    for (const WaitStatus& ws : early->second) task->keep_status(ws);
    early_statuses_.erase(early);
  }
  return *slot;
}

void RecordSession::thread_created(SyscallContext& ctx, pid_t child, uint64_t clear_child_tid) {
  created_ = CreatedThread{child, ctx.task.tid(), clear_child_tid};
}

void RecordSession::start_created_thread() {
  CreatedThread c = *created_;
  created_.reset();
  RecordTask& t = add_record_task(c.tid);
  t.clear_child_tid = c.clear_child_tid;
  // Its first stop: PTRACE_EVENT_STOP, as for every thread a seized tracee
  // creates.
  WaitStatus ws = t.task.wait();
  if (ws.kind != WaitStatus::Kind::EventStop || ws.event != PTRACE_EVENT_STOP) {
    throw TaskGone("the new thread " + std::to_string(c.tid) + " did not start: " + ws.describe());
  }
  t.task.open_memory();
  trace::Event event;
  event.kind = trace::EventKind::ThreadStart;
  event.tid = static_cast<uint32_t>(c.tid);
  event.regs = t.task.regs().to_block();
  event.xstate = t.task.xstate();
  event.status = c.parent;
  write_event(event);
  t.run = RunState::Stopped;
}

std::size_t RecordSession::live_threads() const {
  std::size_t n = 0;
  for (const auto& [tid, t] : record_tasks_) n += t->run != RunState::Gone;
  return n;
}

bool RecordSession::others_waiting(const RecordTask& t) const {
  for (const auto& [tid, other] : record_tasks_) {
    if (other.get() == &t) continue;
    if (other->run == RunState::Stopped) return true;
  }
  return false;
}

RecordTask* RecordSession::pick_next(bool any) {
  if (record_tasks_.empty()) return nullptr;
  auto start = record_tasks_.upper_bound(last_scheduled_);
  RecordTask* spinner = nullptr;
  std::optional<uint64_t> digest;  // the program's state now, computed once
  bool in_kernel = false;
  for (int pass = 0; pass < 2; ++pass) {
    auto begin = pass == 0 ? start : record_tasks_.begin();
    auto end = pass == 0 ? record_tasks_.end() : start;
    for (auto it = begin; it != end; ++it) {
      RecordTask& t = *it->second;
      in_kernel |= t.run == RunState::InKernel;
      if (t.run != RunState::Stopped) continue;
      if (any || !t.spin_digest || t.task.has_kept_status()) return &t;
      // A spinner whose state has not changed would only spin again.
      if (!digest) digest = state_digest(t.task, t.task.xstate()).combined();
      if (*digest != *t.spin_digest) return &t;
      if (!spinner) spinner = &t;
    }
  }
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
  next->spin_digest.reset();
  next->run = RunState::Running;
  BS_LOG(Record, "thread " << next->tid() << " runs");
  if (next->task.has_kept_status()) return handle_stop(*next, next->task.wait());
  next->task.resume(ResumeHow::Syscall);
  return false;
}

bool RecordSession::idle_too_long() const {
  return idle_since_ns_ != 0 && now_ns() - idle_since_ns_ >= kIdleNs;
}

void RecordSession::resume_or_switch(RecordTask& t) {
  bool yielded = t.last_exit_regs.syscallno() == SYS_sched_yield;
  if (&t == current_ && others_waiting(t) && (yielded || now_ns() - t.since_ns >= kSliceNs)) {
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
  t.run = RunState::Gone;
  if (current_ == &t) current_ = nullptr;
}

void RecordSession::record_robust_futexes(RecordTask& t, trace::Event& event) {
  // The kernel has walked the dead thread's robust list and set
  // FUTEX_OWNER_DIED in each futex word it still owned. The list lives in
  // memory the other threads share: walk it too and record every word on
  // it as it is now.
  Task* reader = nullptr;
  for (auto& [tid, other] : record_tasks_) {
    if (other.get() != &t && other->run != RunState::Gone) reader = &other->task;
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

bool RecordSession::on_other_status(RecordTask& t, const WaitStatus& ws) {
  if (ws.is_gone()) {
    // The program is ending (exit_group, a fatal signal, SIGKILL): the
    // first thread's status is the program's.
    if (&t == leader_) return handle_stop(t, ws);
    t.run = RunState::Gone;
    return false;
  }
  t.task.keep_status(ws);
  if (t.run == RunState::InKernel) t.run = RunState::Stopped;
  return false;
}

}  // namespace backstep
