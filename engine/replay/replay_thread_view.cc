// The replayed threads as a debugger sees them: which exist, their
// registers, their names, and which one a stop belongs to. Only reads the
// session's thread table (replay_threads.cc keeps it).
#include <sys/prctl.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "engine/replay/replay_session.h"

namespace backstep {

// Only the debugged process's threads are shown: the other processes of a
// tree replay around it, unseen.
std::vector<uint32_t> ReplaySession::thread_ids() const {
  std::vector<std::pair<uint64_t, uint32_t>> order;
  for (const auto& [tid, thread] : threads_) {
    if (thread.pid == debuggee_) order.emplace_back(thread.started, tid);
  }
  std::sort(order.begin(), order.end());
  std::vector<uint32_t> tids;
  for (const auto& [started, tid] : order) tids.push_back(tid);
  return tids;
}

bool ReplaySession::has_thread(uint32_t tid) const {
  auto it = threads_.find(tid);
  return it != threads_.end() && it->second.pid == debuggee_;
}

Registers ReplaySession::thread_registers(uint32_t tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) throw std::out_of_range("no thread " + std::to_string(tid) + " at this point");
  return it->second.task->regs();
}

std::vector<uint8_t> ReplaySession::thread_xstate(uint32_t tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) throw std::out_of_range("no thread " + std::to_string(tid) + " at this point");
  return it->second.task->xstate();
}

Task& ReplaySession::thread_task(uint32_t tid) {
  auto it = threads_.find(tid);
  if (it == threads_.end()) throw std::out_of_range("no thread " + std::to_string(tid) + " at this point");
  return *it->second.task;
}

uint64_t ReplaySession::thread_buffer(uint32_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? 0 : it->second.buffer;
}

std::string ReplaySession::thread_name(uint32_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? std::string() : it->second.name;
}

bool ReplaySession::thread_in_call(uint32_t tid) const {
  auto it = threads_.find(tid);
  return it != threads_.end() && it->second.at_entry;
}

uint32_t ReplaySession::stopped_thread() {
  if (has_thread(current_tid_)) return current_tid_;
  return next_thread();
}

uint32_t ReplaySession::next_thread() {
  const trace::Event* next = peek_next();
  // A ThreadStart names the thread it makes, which does not exist yet.
  if (next && next->kind != trace::EventKind::ThreadStart && has_thread(next->tid)) return next->tid;
  if (has_thread(current_tid_)) return current_tid_;
  std::vector<uint32_t> tids = thread_ids();
  return tids.empty() ? 0 : tids.front();
}

// prctl(PR_SET_NAME, name) as the recording saw it succeed: the name is in
// the program's memory (as it was then: replay restored it), at most 15
// bytes and a NUL, as the kernel keeps it. Or a name written to a thread's
// comm file in /proc (comm_files.h).
void ReplaySession::note_thread_name(const Registers& call, int64_t result) {
  if (call.syscallno() != SYS_prctl) {
    auto read = [this](uint64_t addr, void* buf, std::size_t len) {
      return task_->read_some(remote_ptr<void>(addr), buf, len);
    };
    std::optional<CommFiles::Rename> renamed = comm_files_.after_call(call, result, current_tid_, exec_->tid, read);
    if (!renamed) return;
    auto it = threads_.find(renamed->tid);
    if (it != threads_.end()) it->second.name = renamed->name;
    return;
  }
  if (call.arg(0) != PR_SET_NAME || result != 0) return;
  char name[16] = {};
  try {
    task_->read_bytes(remote_ptr<void>(call.arg(1)), name, sizeof(name) - 1);
  } catch (const std::exception&) {
    return;  // the kernel read it; a page gone since is no reason to stop replay
  }
  threads_[current_tid_].name.assign(name, strnlen(name, sizeof(name) - 1));
}

}  // namespace backstep
