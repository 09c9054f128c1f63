// Process trees in replay (shared/notes/threads-and-processes.md §3, §6).
//
// Every recorded process is a process here too, made at its ProcessStart
// event by a clone that replay runs in its creator (from the tool page):
// without CLONE_VM for a fork, so the child starts with a copy of the
// creator's memory as the kernel gave it; with CLONE_VM for a vfork child,
// which shares its creator's memory until it execs. Always CLONE_PARENT:
// backstep, not the replayed creator, is the parent, so no SIGCHLD or
// zombie of replay's own ever reaches the program. Its registers then come
// from the trace.
//
// An Exec event after the first replaces the process's address space the
// way the first did: the process execs the replay stub, and the mappings,
// memory and registers are rebuilt from the event. A process's Exit event
// ends its tasks. Breakpoints, watchpoints and single steps apply to the
// debugged process only (the first); the others run through.
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <optional>

#include "engine/core/tool_page.h"
#include "engine/replay/address_space.h"
#include "engine/replay/replay_session.h"
#include "engine/replay/replay_stub.h"

namespace backstep {

bool ReplaySession::in_debuggee() const {
  auto it = threads_.find(current_tid_);
  return it != threads_.end() && it->second.pid == debuggee_;
}

std::vector<Task*> ReplaySession::space_tasks() const {
  std::map<uint32_t, Task*> one;
  for (const auto& [tid, thread] : threads_) one.emplace(thread.space, thread.task);
  std::vector<Task*> tasks;
  for (const auto& [space, task] : one) tasks.push_back(task);
  return tasks;
}

std::vector<pid_t> ReplaySession::space_pids() const {
  std::vector<pid_t> pids;
  for (Task* t : space_tasks()) pids.push_back(t->tid());
  return pids;
}

bool ReplaySession::ends_replay(const trace::Event& exit) const {
  return exit.tid == debuggee_ || processes_.size() <= 1;
}

void ReplaySession::apply_fork_differences(Task& child, const trace::Event& event) {
  // Replay never gives the flags to the kernel (a checkpoint's fork would
  // wipe or drop the memory too): the child's copy is changed here.
  for (const trace::Mapping& m : event.mappings) {
    long nr = 0;
    uint64_t advice = 0;
    if (m.kind == trace::MappingKind::ForkWiped) {
      nr = SYS_madvise;
      advice = MADV_DONTNEED;  // private anonymous memory reads as zeros
    } else if (m.kind == trace::MappingKind::ForkDropped) {
      nr = SYS_munmap;
    } else {
      continue;
    }
    int64_t r = tool_syscall(child, nr, m.start, m.end - m.start, advice);
    if (r != 0) {
      diverged("process " + std::to_string(event.tid) + ": its copy of " + std::to_string(m.start) + "-" +
               std::to_string(m.end) + " could not be " + (nr == SYS_munmap ? "unmapped" : "wiped") +
               " (error " + std::to_string(-r) + ")");
    }
  }
}

void ReplaySession::start_process(const trace::Event& event) {
  auto creator = threads_.find(static_cast<uint32_t>(event.status));
  if (creator == threads_.end()) {
    diverged("process " + std::to_string(event.tid) + " is created by thread " + std::to_string(event.status) +
             ", which does not exist");
  }
  if (threads_.count(event.tid) || processes_.count(event.tid)) {
    diverged("process " + std::to_string(event.tid) + " is created twice");
  }
  bool shares_memory = (event.clone_flags & CLONE_VM) != 0;
  uint64_t flags = CLONE_PARENT | (shares_memory ? CLONE_VM : 0);
  ReplayThread& from = creator->second;
  pid_t live = from.task->remote_clone(kToolSyscallInsn, flags);
  Task& t = add_task(live);
  t.set_regs(Registers::from_block(*event.regs));
  if (!event.xstate.empty()) t.set_xstate(event.xstate);
  // What the kernel wrote into the child's memory (its tid at
  // CLONE_CHILD_SETTID), and the memory its fork did not copy.
  write_memory(t, event);
  if (!shares_memory) apply_fork_differences(t, event);
  ReplayThread& child = threads_[event.tid] = ReplayThread{&t};
  open_copies_.erase(event.tid);  // a copy of its creator's table: opened again when needed
  child.started = event_number_;
  child.name = from.name;
  child.pid = event.tid;
  child.space = shares_memory ? from.space : event.tid;
  child.buffer = from.buffer;  // a copy at the same address, or the same one
  if (!shares_memory) brk_[child.space] = brk_[from.space];
  if (!shares_memory && stub_areas_.count(from.space)) stub_areas_[child.space] = stub_areas_[from.space];
  processes_.insert(event.tid);
  execs_[event.tid] = execs_.at(from.pid);
  if (auto image = images_.find(from.pid); image != images_.end()) images_[event.tid] = image->second;
  if (from.pid == debuggee_) {
    last_birth_ = Birth{event_number_, event.tid, creator->first, (event.clone_flags & CLONE_VFORK) != 0,
                        Registers::from_block(*event.regs)};
  }
}

void ReplaySession::exec_process(const trace::Event& event) {
  auto it = threads_.find(current_tid_);
  if (it == threads_.end() || current_tid_ != event.tid) diverged("an exec by a thread that is not running");
  ReplayThread& thread = it->second;
  // The thread stands at its execve (run_to_event stopped at the call).
  long nr = static_cast<long>(task_->regs().syscallno());
  if (nr != SYS_execve && nr != SYS_execveat) {
    diverged("the trace has an exec here, the program makes system call " + std::to_string(nr));
  }
  for (const auto& [tid, other] : threads_) {
    if (tid != current_tid_ && other.pid == thread.pid) diverged("an exec in a process with several threads");
  }
  std::string stub = replay_stub_exe();
  task_->remote_exec(kToolSyscallInsn, kToolScratch, kToolScratchSize, stub, {stub, kStubArg});
  install_tool_page(*task_);
  rebuild_address_space(*task_, event, reader(), shared_);
  open_copies_.erase(thread.pid);  // close-on-exec
  thread.space = thread.pid;
  thread.at_entry = false;
  thread.restart.reset();
  thread.name.clear();  // comm becomes the new program's name
  brk_[thread.space] = static_cast<uint64_t>(event.status);
  // The new program's library registers its area again.
  stub_areas_[thread.space] = recorded_stub_areas(event);
  execs_[thread.pid] = std::make_shared<const trace::Event>(event);
  // Not the recording's first exec (the process tree's root runs that one
  // at the start): a new program, whose code no breakpoint set before
  // belongs to.
  if (event_number_ > 0) images_[thread.pid] = event_number_;
  if (current_tid_ != thread.pid) {
    // A thread other than the first exec'd: it takes the process's id, as
    // under the kernel (the other threads ended before the exec).
    ReplayThread moved = thread;
    threads_.erase(it);
    threads_[moved.pid] = moved;
    current_tid_ = moved.pid;
  }
  armed_.clear();
  slot_owner_.clear();
}

void ReplaySession::end_process(const trace::Event& event) {
  uint32_t pid = event.tid;
  if (!processes_.count(pid)) diverged("process " + std::to_string(pid) + " ends but does not exist");
  if (pid == exec_->tid) root_status_ = static_cast<int>(event.status);
  std::optional<uint32_t> current_space;  // the current thread's, if it ends here
  for (auto it = threads_.begin(); it != threads_.end();) {
    if (it->second.pid != pid) {
      ++it;
      continue;
    }
    it->second.task->kill();
    if (it->first == current_tid_) current_space = it->second.space;
    it = threads_.erase(it);
  }
  if (current_space) current_thread_ended(*current_space);
  processes_.erase(pid);
  if (pid != debuggee_) {
    execs_.erase(pid);
    images_.erase(pid);
  }
}

void ReplaySession::set_debuggee(uint32_t pid) {
  if (!processes_.count(pid)) throw std::runtime_error("process " + std::to_string(pid) + " does not exist here");
  debuggee_ = pid;
}

}  // namespace backstep
