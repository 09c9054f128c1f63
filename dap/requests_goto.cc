// goto in a recording: VS Code's "Jump to Cursor" cannot move the program
// counter of a replay without changing what it computes, but it can travel
// in time: to the last time the line ran (in any thread) before this
// position, or, if it never did, to the next time it runs. The program's
// state there is what it was then; nothing is skipped or changed.
#include "dap/json_text.h"
#include "dap/session.h"

namespace backstep::dap {

Reply Session::goto_targets(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  const llvm::json::Object* source = args.getObject("source");
  auto path = source ? source->getString("path") : llvm::None;
  auto line = args.getInteger("line");
  if (!path || !line) return Failure{"gotoTargets: a source path and a line are needed"};
  // Where gdb would put a breakpoint for the line tells whether it has
  // code, and which line it is (a blank line moves to the next).
  auto probe = mi_checked("-break-insert -d --source " + mi::quote(path->str()) + " --line " + std::to_string(*line));
  if (auto* f = std::get_if<Failure>(&probe)) return *f;
  const mi::Value* bkpt = std::get<mi::Record>(probe).results.get("bkpt");
  std::string number = bkpt ? bkpt->text("number") : "";
  long actual = bkpt ? std::strtol(bkpt->text("line", std::to_string(*line).c_str()).c_str(), nullptr, 10) : *line;
  if (!number.empty()) mi("-break-delete " + number);
  goto_targets_.push_back({path->str(), actual});
  llvm::json::Object target{{"id", static_cast<int64_t>(goto_targets_.size())},
                            {"label", json_text("line " + std::to_string(actual) +
                                                ": the last time it ran (or the next)")},
                            {"line", actual}};
  return llvm::json::Object{{"targets", llvm::json::Array{std::move(target)}}};
}

Reply Session::goto_(const llvm::json::Object& args) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  if (running_) return Failure{"the program is running: pause it first"};
  auto id = args.getInteger("targetId");
  if (!id || *id < 1 || static_cast<std::size_t>(*id) > goto_targets_.size()) {
    return Failure{"goto: unknown target (ask gotoTargets first)"};
  }
  const GotoTarget target = goto_targets_[static_cast<std::size_t>(*id - 1)];
  // Any thread's run of the line: the one that ran it may not be the one
  // the IDE shows.
  std::string location = "--source " + mi::quote(target.path) + " --line " + std::to_string(target.line);
  auto inserted = mi_checked("-break-insert -t " + location);
  if (auto* f = std::get_if<Failure>(&inserted)) return *f;
  const mi::Value* bkpt = std::get<mi::Record>(inserted).results.get("bkpt");
  GotoRun run{bkpt ? std::strtol(bkpt->text("number", "0").c_str(), nullptr, 10) : 0, {}, false};
  // Only the line stops the travel: the user's breakpoints wait.
  for (const auto* group : {&function_breakpoints_, &data_breakpoints_, &instruction_breakpoints_}) {
    run.disabled.insert(run.disabled.end(), group->begin(), group->end());
  }
  for (const auto& [path, numbers] : source_breakpoints_) run.disabled.insert(run.disabled.end(), numbers.begin(), numbers.end());
  if (!run.disabled.empty()) {
    std::string command = "-break-disable";
    for (long n : run.disabled) command += " " + std::to_string(n);
    mi(command);
  }
  goto_run_ = std::move(run);
  Reply r = resume("-exec-continue --reverse", RunDirection::Backward);
  if (std::holds_alternative<Failure>(r)) end_goto();
  return r;
}

bool Session::continue_goto(const mi::Record& stopped, StopView& view) {
  bool at_line = stopped.results.text("reason") == "breakpoint-hit" &&
                 std::strtol(stopped.results.text("bkptno", "0").c_str(), nullptr, 10) == goto_run_->breakpoint;
  if (!at_line && !goto_run_->forwards && view.reason == "start of recording") {
    // The line never ran before here: the next time it runs, then.
    goto_run_->forwards = true;
    if (!std::holds_alternative<Failure>(resume("-exec-continue", RunDirection::Forward))) return true;
  }
  end_goto();
  if (at_line) {
    view.reason = "goto";
    view.description = goto_run_forwards_note_;
    view.hit_breakpoint_ids.clear();
  }
  return false;
}

void Session::end_goto() {
  if (!goto_run_) return;
  GotoRun run = std::move(*goto_run_);
  goto_run_.reset();
  goto_run_forwards_note_ = run.forwards ? "the next time this line runs" : "the last time this line ran";
  if (run.breakpoint > 0) mi("-break-delete " + std::to_string(run.breakpoint));
  if (!run.disabled.empty()) {
    std::string command = "-break-enable";
    for (long n : run.disabled) command += " " + std::to_string(n);
    mi(command);
  }
}

}  // namespace backstep::dap
