#include "engine/trace/process_list.h"

#include "engine/trace/trace_error.h"

namespace backstep::trace {
namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// ThreadStart and ProcessStart carry the creating thread's tid in `status`.
uint32_t creator(const Event& e) { return static_cast<uint32_t>(e.status); }

}  // namespace

void ProcessList::fail(uint64_t n, const std::string& what) {
  throw TraceError("event " + std::to_string(n) + ": " + what);
}

void ProcessList::add(uint64_t n, const Event& e) {
  if (processes_.empty()) {
    if (e.kind != EventKind::Exec) fail(n, std::string("the trace starts with ") + to_string(e.kind) + ", not Exec");
    start(n, e.tid, std::nullopt);
    processes_.back().command = command_of(e, true);
    return;
  }
  switch (e.kind) {
    case EventKind::Exec:
      processes_[index_.at(process_of(n, e.tid))].command = command_of(e, false);
      break;
    case EventKind::ThreadStart:
      thread_process_[e.tid] = process_of(n, creator(e));
      break;
    case EventKind::ProcessStart:
      start(n, e.tid, process_of(n, creator(e)));
      break;
    case EventKind::Exit: {
      auto it = index_.find(e.tid);
      if (it == index_.end()) fail(n, "process " + std::to_string(e.tid) + " exits but was never started");
      processes_[it->second].status = static_cast<int>(e.status);
      break;
    }
    default:
      break;
  }
}

std::string ProcessList::command_of(const Event& e, bool first) const {
  if (!e.argv.empty()) return join(e.argv);
  // The first Exec leaves argv empty when it is the header's command line;
  // a later one only for an exec with an empty argv, whose path says what ran.
  return first ? join(header_.argv) : e.message;
}

void ProcessList::start(uint64_t n, uint32_t pid, std::optional<uint32_t> ppid) {
  // A pid comes back only after its process has ended (a long recording can
  // wrap around pid_max); the newer process owns it from then on.
  auto old = index_.find(pid);
  if (old != index_.end() && !processes_[old->second].status) {
    fail(n, "process " + std::to_string(pid) + " is started while it still runs");
  }
  index_[pid] = processes_.size();
  thread_process_[pid] = pid;
  ProcessInfo p;
  p.pid = pid;
  p.ppid = ppid;
  processes_.push_back(p);
}

uint32_t ProcessList::process_of(uint64_t n, uint32_t tid) const {
  auto it = thread_process_.find(tid);
  if (it == thread_process_.end()) fail(n, "thread " + std::to_string(tid) + " appears before it is started");
  return it->second;
}

}  // namespace backstep::trace
