// Threads in replay. Each event runs on the thread it names; the others stay
// at their ptrace stops. A thread is created at its ThreadStart event by a
// clone that replay makes itself, from the tool page of the thread that
// created it (its registers and XSAVE area then come from the trace), and
// ends at its ThreadExit event, after the kernel's writes recorded there.
// Threads are separate processes here that share the address space, so
// memory and breakpoints are common to all, and debug registers and
// registers belong to each.
#include <sched.h>

#include <map>

#include "values/log.h"
#include "engine/core/tool_page.h"
#include "engine/replay/replay_session.h"

namespace backstep {
namespace {

constexpr uint64_t kThreadCloneFlags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_SYSVSEM | CLONE_PARENT;

}  // namespace

void ReplaySession::switch_to(uint32_t tid) {
  if (tid == current_tid_) return;
  auto it = threads_.find(tid);
  if (it == threads_.end()) {
    diverged("the trace names thread " + std::to_string(tid) + ", which does not exist at this point");
  }
  auto cur = threads_.find(current_tid_);
  if (cur != threads_.end()) {
    cur->second.breakpoint_reported = breakpoint_reported_;
    if (!armed_.empty()) cur->second.debug_registers_set = true;
  }
  current_tid_ = tid;
  task_ = it->second.task;
  breakpoint_reported_ = it->second.breakpoint_reported;
  // The debug registers belong to the thread: arm them again in this one.
  if (it->second.debug_registers_set) task_->set_debug_register(7, 0);
  armed_.clear();
  slot_owner_.clear();
}

void ReplaySession::start_thread(const trace::Event& event) {
  auto parent = threads_.find(static_cast<uint32_t>(event.status));
  if (parent == threads_.end()) {
    diverged("thread " + std::to_string(event.tid) + " is created by thread " + std::to_string(event.status) +
             ", which does not exist");
  }
  if (threads_.count(event.tid)) diverged("thread " + std::to_string(event.tid) + " is created twice");
  pid_t live = parent->second.task->remote_clone(kToolSyscallInsn, kThreadCloneFlags);
  Task& t = add_task(live);
  t.set_regs(Registers::from_block(*event.regs));
  if (!event.xstate.empty()) t.set_xstate(event.xstate);
  ReplayThread& thread = threads_[event.tid] = ReplayThread{&t};
  thread.started = event_number_;
  thread.name = parent->second.name;  // the kernel copies comm at clone
  thread.pid = parent->second.pid;
  thread.space = parent->second.space;
  thread.buffer = parent->second.buffer;  // until it registers its own
}

void ReplaySession::end_thread(const trace::Event& event) {
  auto it = threads_.find(event.tid);
  if (it == threads_.end()) diverged("thread " + std::to_string(event.tid) + " ends but does not exist");
  Task& t = *it->second.task;
  uint32_t space = it->second.space;
  write_memory(t, event);
  t.kill();
  threads_.erase(it);
  if (current_tid_ == event.tid) current_thread_ended(space);
}

void ReplaySession::current_thread_ended(uint32_t space) {
  // The next event names the thread that goes on (switch_to).
  current_tid_ = 0;
  breakpoint_reported_ = false;
  armed_.clear();
  slot_owner_.clear();
  // Until then task_ must still be a live task of the tree, not the ended
  // one: a checkpoint taken at this boundary forks it (clone), and memory
  // is read through it. One of the same address space where one is left,
  // so that reads see the same memory.
  Task* live = nullptr;
  for (const auto& [tid, thread] : threads_) {
    if (thread.space == space) {
      live = thread.task;
      break;
    }
    if (!live) live = thread.task;
  }
  if (live) task_ = live;  // none left: the replay is over, nothing runs
}

void ReplaySession::copy_threads_into(ReplaySession& copy) {
  // fork() copied task_'s thread, with its address space: the current
  // thread, or where the current one has just ended, another live one
  // (current_thread_ended). Every other address space of the tree is
  // forked the same way from one of its threads; the remaining threads are
  // made again inside their space's copy. No thread may be current in the
  // copy either: the next event names it.
  copy.current_tid_ = current_tid_;
  std::map<uint32_t, Task*> space_copies;
  auto copy_of = [&](uint32_t tid, const ReplayThread& thread, Task& task) {
    bool reported = tid == current_tid_ ? breakpoint_reported_ : thread.breakpoint_reported;
    copy.threads_[tid] = ReplayThread{&task,       thread.at_entry, reported,     false,         thread.restart,
                                      thread.started, thread.name, thread.pid, thread.space, thread.buffer};
  };
  for (const auto& [tid, thread] : threads_) {
    if (thread.task != task_) continue;
    copy_of(tid, thread, *copy.task_);
    space_copies.emplace(thread.space, copy.task_);
  }
  BS_ASSERT(!space_copies.empty(), "checkpoint at event " << event_number_ << ": forked task " << task_->tid()
                                                          << " is no thread of the replay");
  for (const auto& [tid, thread] : threads_) {
    if (thread.task == task_) continue;
    auto space = space_copies.find(thread.space);
    pid_t live = space == space_copies.end() ? thread.task->remote_fork(kToolSyscallInsn)
                                             : space->second->remote_clone(kToolSyscallInsn, kThreadCloneFlags);
    Task& t = copy.add_task(live);
    t.set_regs(thread.task->regs());
    t.set_xstate(thread.task->xstate());
    if (space == space_copies.end()) space_copies.emplace(thread.space, &t);
    copy_of(tid, thread, t);
  }
}

}  // namespace backstep
