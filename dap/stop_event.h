// What gdb's *stopped record means to an IDE: the reason and words of DAP's
// `stopped` event, or the program's exit. Pure (no gdb, no I/O), so that
// every reason is unit-tested (tests/dap_stop_event_test.cc).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dap/mi/mi_record.h"
#include "llvm/Support/JSON.h"

namespace backstep::dap {

enum class RunDirection { Forward, Backward };

// Why the adapter itself made the program run, when that decides the reason.
enum class RunCause {
  Other,    // a step, continue or a REPL command
  Pause,    // a `pause` request interrupted it
  Launch,   // the stop at the start of the recording when gdb connects
};

struct StopView {
  bool exited = false;  // the replayed process exited (no stop to show)
  int exit_code = 0;
  std::string reason;       // DAP's: "breakpoint", "data breakpoint", "step", ...
  std::string description;  // what the IDE shows, e.g. "end of recording"
  std::string text;         // details: a watchpoint's old and new value, a signal
  std::optional<long> thread_id;
  std::vector<long> hit_breakpoint_ids;
};

// What the adapter knows of gdb's breakpoints by number: which are function
// breakpoints, and what the user called each watched expression (gdb knows
// it by its address: "*(int *) 0x5555...").
struct BreakpointNames {
  std::set<long> functions;
  std::set<long> instructions;
  std::map<long, std::string> watches;
};

// `stopped` is a *stopped record; `direction` is that of the command that ran.
StopView view_stop(const mi::Record& stopped, RunDirection direction, RunCause cause,
                   const BreakpointNames& names);

// DAP's `stopped` event body (all threads stop together: gdb's all-stop).
llvm::json::Object stopped_event_body(const StopView& view);

}  // namespace backstep::dap
