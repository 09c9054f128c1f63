// `backstep ps [TRACE]`: the processes of a recording, one line each in the
// order they were created, read from the trace's events alone (no replay;
// engine/trace/process_list.h):
//
//   PID   PPID  EXIT  CMD
//
// PID is the recorded pid; PPID the pid of the process whose thread created
// it, "-" for the first; EXIT the exit code, -N for a process killed by
// signal N, or "none" when the trace ends first; CMD the argv of the
// process's last exec, or "(forked without exec)" (rr prints the same
// columns). Tab-separated.
#include <sys/wait.h>

#include <cinttypes>
#include <csignal>
#include <cstdio>

#include "cli/commands.h"
#include "cli/trace_dir.h"
#include "engine/trace/printable.h"
#include "engine/trace/process_list.h"
#include "engine/trace/reader.h"
#include "engine/trace/trace_error.h"

namespace backstep::cli {
namespace {

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
    trace::ProcessList list(reader.header());
    for (;;) {
      uint64_t n = reader.next_event_number();
      auto event = reader.next();
      if (!event) break;
      list.add(n, *event);
    }
    // The whole trace is read before anything is printed: a damaged trace
    // gives an error and no table.
    std::printf("PID\tPPID\tEXIT\tCMD\n");
    for (const trace::ProcessInfo& p : list.processes()) {
      std::printf("%" PRIu32 "\t%s\t%s\t%s\n", p.pid, p.ppid ? std::to_string(*p.ppid).c_str() : "-",
                  exit_text(p.status).c_str(), p.command ? trace::printable(*p.command).c_str() : "(forked without exec)");
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
