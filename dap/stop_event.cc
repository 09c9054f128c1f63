#include "dap/stop_event.h"

#include <csignal>
#include <cstdlib>
#include <cstring>

#include "dap/json_text.h"

namespace backstep::dap {
namespace {

std::optional<long> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  long v = std::strtol(s.c_str(), &end, 10);
  if (*end != '\0') return std::nullopt;
  return v;
}

// gdb's watchpoint value tuple: {old,new} for a write (or an access that
// changed it), {value} for a read or an access that did not.
// In the program's order: what the bytes held before the write and after
// it. gdb's "old" and "new" follow the direction it ran, so that going
// backwards its old value is the one written.
std::string watch_text(const mi::Record& r, RunDirection direction, const BreakpointNames& names) {
  const mi::Value* wpt = r.results.get("wpt");
  if (!wpt) wpt = r.results.get("hw-awpt");
  if (!wpt) wpt = r.results.get("hw-rwpt");
  std::string exp = wpt ? wpt->text("exp") : "";
  if (wpt) {
    auto named = names.watches.find(std::strtol(wpt->text("number", "0").c_str(), nullptr, 10));
    if (named != names.watches.end()) exp = named->second;
  }
  const mi::Value* value = r.results.get("value");
  std::string out = exp.empty() ? "" : exp + ": ";
  if (value && value->get("old") && value->get("new")) {
    bool back = direction == RunDirection::Backward;
    out += value->text(back ? "new" : "old") + " -> " + value->text(back ? "old" : "new");
  } else if (value && value->get("new")) {
    out += "-> " + value->text("new");
  } else if (value && value->get("value")) {
    out += "value " + value->text("value");
  }
  return out;
}

// "SIGSEGV" -> 11, as the shell reports a death by signal (0 if unknown).
int signal_number(const std::string& name) {
  if (name.rfind("SIG", 0) != 0) return 0;
  for (int n = 1; n < NSIG; ++n) {
    const char* abbrev = sigabbrev_np(n);
    if (abbrev && name.compare(3, std::string::npos, abbrev) == 0) return n;
  }
  return 0;
}

}  // namespace

StopView view_stop(const mi::Record& r, RunDirection direction, RunCause cause,
                   const BreakpointNames& names) {
  StopView v;
  v.thread_id = number(r.results.text("thread-id"));
  std::string reason = r.results.text("reason");
  if (reason == "exited-normally" || reason == "exited" || reason == "exited-signalled") {
    v.exited = true;
    // gdb writes the exit code in octal ("exit-code=\"01\"").
    v.exit_code = static_cast<int>(std::strtol(r.results.text("exit-code", "0").c_str(), nullptr, 8));
    if (reason == "exited-signalled") v.exit_code = 128 + signal_number(r.results.text("signal-name"));
    return v;
  }
  // A stop with no signal ("signal 0": gdb's `starti`) where the adapter
  // asked to stay at the start is the entry too.
  bool no_signal = reason == "signal-received" && r.results.text("signal-name") == "0";
  if (cause == RunCause::Launch && no_signal) {
    v.reason = "entry";
    v.description = "start of recording";
    return v;
  }
  if (reason.empty() || reason == "no-history") {
    // gdb names no reason at either end of the recorded history (its
    // console says "No more reverse-execution history."): which end follows
    // from the direction the program ran.
    if (cause == RunCause::Launch) {
      v.reason = "entry";
      v.description = "start of recording";
    } else {
      v.reason = v.description = direction == RunDirection::Backward ? "start of recording" : "end of recording";
    }
    v.text = "No more reverse-execution history.";
    return v;
  }
  if (reason == "breakpoint-hit") {
    auto id = number(r.results.text("bkptno"));
    if (id) v.hit_breakpoint_ids.push_back(*id);
    v.reason = id && names.functions.count(*id)      ? "function breakpoint"
               : id && names.instructions.count(*id) ? "instruction breakpoint"
                                                     : "breakpoint";
    v.description = v.reason;
    return v;
  }
  if (reason == "watchpoint-trigger" || reason == "read-watchpoint-trigger" ||
      reason == "access-watchpoint-trigger") {
    for (const char* field : {"wpt", "hw-awpt", "hw-rwpt"}) {
      if (const mi::Value* w = r.results.get(field)) {
        if (auto id = number(w->text("number"))) v.hit_breakpoint_ids.push_back(*id);
      }
    }
    v.reason = "data breakpoint";
    v.text = watch_text(r, direction, names);
    v.description = v.text.empty() ? v.reason : "data breakpoint: " + v.text;
    return v;
  }
  if (reason == "signal-received") {
    std::string name = r.results.text("signal-name");
    if (cause == RunCause::Pause && (name == "SIGINT" || name == "0" || name == "SIGTRAP")) {
      v.reason = v.description = "pause";
      return v;
    }
    v.reason = "exception";
    std::string meaning = r.results.text("signal-meaning");
    v.description = "signal " + name + (meaning.empty() ? "" : " (" + meaning + ")");
    v.text = name;
    return v;
  }
  if (cause == RunCause::Pause) {
    v.reason = v.description = "pause";
    return v;
  }
  // end-stepping-range, function-finished, location-reached, solib-event,
  // fork, exec, syscall: where a step or a run-to ended.
  v.reason = "step";
  v.description = reason == "function-finished"  ? "step out"
                  : reason == "location-reached" ? "run to location"
                  : reason == "end-stepping-range" ? "step"
                                                   : reason;
  if (reason == "function-finished" && r.results.get("return-value")) {
    v.text = "returned " + r.results.text("return-value");
  }
  return v;
}

llvm::json::Object stopped_event_body(const StopView& v) {
  llvm::json::Object body{{"reason", json_text(v.reason)}, {"allThreadsStopped", true}};
  if (!v.description.empty()) body["description"] = json_text(v.description);
  if (!v.text.empty()) body["text"] = json_text(v.text);
  if (v.thread_id) body["threadId"] = *v.thread_id;
  if (!v.hit_breakpoint_ids.empty()) {
    llvm::json::Array ids;
    for (long id : v.hit_breakpoint_ids) ids.push_back(id);
    body["hitBreakpointIds"] = std::move(ids);
  }
  return body;
}

}  // namespace backstep::dap
