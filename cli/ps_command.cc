// `backstep ps [TRACE]`: the processes of a recording, one line each in the
// order they were created, read from the trace's events alone (no replay):
//
//   PID   PPID  EXIT  CMD
//
// PID is the recorded pid. PPID is the pid of the process whose thread
// created it (ProcessStart's `status` is that thread's tid; ThreadStart
// events say which process each thread belongs to); the first process has
// none ("-"). EXIT is the exit code, -N for a process killed by signal N, or
// "none" when the trace ends first. CMD is the argv of the process's last
// exec, or "(forked without exec)" (rr prints the same columns).
#include <sys/wait.h>

#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "engine/trace/reader.h"
#include "engine/trace/trace_error.h"

namespace backstep::cli {
namespace {

struct ProcessRow {
  uint32_t pid = 0;
  std::optional<uint32_t> ppid;      // none for the first process
  std::optional<int> status;         // the wait status of its Exit event
  std::optional<std::string> cmd;    // the argv of its last exec
};

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

class ProcessTable {
 public:
  explicit ProcessTable(const trace::Header& header) : header_(header) {}

  // Takes in event number n. Throws TraceError for an event that contradicts
  // the ones before it.
  void add(uint64_t n, const trace::Event& e) {
    switch (e.kind) {
      case trace::EventKind::Exec:
        if (rows_.empty()) {
          // The trace's first event: the program the recording started.
          start(n, e.tid, std::nullopt);
        }
        row_of_thread(n, e.tid).cmd = command_of(e, n == first_exec_);
        break;
      case trace::EventKind::ThreadStart:
        thread_process_[e.tid] = process_of(n, creator(e));
        break;
      case trace::EventKind::ProcessStart:
        start(n, e.tid, process_of(n, creator(e)));
        break;
      case trace::EventKind::Exit: {
        auto it = index_.find(e.tid);
        if (it == index_.end()) fail(n, "process " + std::to_string(e.tid) + " exits but was never started");
        rows_[it->second].status = static_cast<int>(e.status);
        break;
      }
      default:
        break;
    }
  }

  const std::vector<ProcessRow>& rows() const { return rows_; }

 private:
  [[noreturn]] static void fail(uint64_t n, const std::string& what) {
    throw trace::TraceError("event " + std::to_string(n) + ": " + what);
  }

  static uint32_t creator(const trace::Event& e) { return static_cast<uint32_t>(e.status); }

  std::string command_of(const trace::Event& e, bool first) const {
    // The first Exec leaves argv empty when it is the header's command line.
    if (!e.argv.empty()) return join(e.argv);
    if (first) return join(header_.argv);
    return e.message;  // an exec with an empty argv: its path says what ran
  }

  void start(uint64_t n, uint32_t pid, std::optional<uint32_t> ppid) {
    if (index_.count(pid)) fail(n, "process " + std::to_string(pid) + " is started twice");
    if (rows_.empty()) first_exec_ = n;
    index_[pid] = rows_.size();
    thread_process_[pid] = pid;
    ProcessRow row;
    row.pid = pid;
    row.ppid = ppid;
    rows_.push_back(row);
  }

  uint32_t process_of(uint64_t n, uint32_t tid) const {
    auto it = thread_process_.find(tid);
    if (it == thread_process_.end()) fail(n, "thread " + std::to_string(tid) + " appears before it is started");
    return it->second;
  }

  ProcessRow& row_of_thread(uint64_t n, uint32_t tid) { return rows_[index_.at(process_of(n, tid))]; }

  const trace::Header& header_;
  std::vector<ProcessRow> rows_;
  std::map<uint32_t, std::size_t> index_;          // pid -> row
  std::map<uint32_t, uint32_t> thread_process_;    // tid -> pid
  uint64_t first_exec_ = 0;
};

std::string exit_text(const std::optional<int>& status) {
  if (!status) return "none";
  if (WIFEXITED(*status)) return std::to_string(WEXITSTATUS(*status));
  if (WIFSIGNALED(*status)) return "-" + std::to_string(WTERMSIG(*status));
  return "?";
}

}  // namespace

int ps_command(const Args& args) {
  if (args.size() > 1) {
    error("ps takes one trace");
    return kExitUsage;
  }
  std::signal(SIGPIPE, SIG_DFL);
  std::string dir = resolve_trace(args.empty() ? "" : args[0]);
  try {
    trace::TraceReader reader(dir);
    ProcessTable table(reader.header());
    for (;;) {
      uint64_t n = reader.next_event_number();
      auto event = reader.next();
      if (!event) break;
      if (n == 0 && event->kind != trace::EventKind::Exec) {
        throw trace::TraceError("event 0 is " + std::string(trace::to_string(event->kind)) + ", not Exec");
      }
      table.add(n, *event);
    }
    std::printf("PID\tPPID\tEXIT\tCMD\n");
    for (const ProcessRow& r : table.rows()) {
      std::printf("%" PRIu32 "\t%s\t%s\t%s\n", r.pid, r.ppid ? std::to_string(*r.ppid).c_str() : "-",
                  exit_text(r.status).c_str(), r.cmd ? r.cmd->c_str() : "(forked without exec)");
    }
    if (reader.truncated()) {
      std::fflush(stdout);
      error("warning: the trace is cut short at event " + std::to_string(reader.next_event_number()) +
            "; a process still running there shows EXIT none");
    }
  } catch (const trace::TraceError& e) {
    std::fflush(stdout);
    error(e.what());
    return kExitFailure;
  }
  return 0;
}

}  // namespace backstep::cli
