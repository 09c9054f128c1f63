// Running the recording, forwards and backwards: each request is one gdb
// execution command; its stop comes later as gdb's *stopped record.
#include "dap/session.h"

namespace backstep::dap {
namespace {

bool by_instruction(const llvm::json::Object& args) {
  return args.getString("granularity") == llvm::StringRef("instruction");
}

std::string thread_option(const llvm::json::Object& args) {
  auto t = args.getInteger("threadId");
  return t ? " --thread " + std::to_string(*t) : "";
}

}  // namespace

Reply Session::resume(const std::string& command, RunDirection direction, RunCause cause) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  if (running_) return Failure{"the program is running: pause it first"};
  forget_stopped_state();
  auto r = mi_checked(command);
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  direction_ = direction;
  cause_ = cause;
  if (std::get<mi::Record>(r).klass == "running") running_ = true;
  return llvm::json::Value(nullptr);
}

Reply Session::continue_(const llvm::json::Object&) {
  Reply r = resume("-exec-continue", RunDirection::Forward);
  if (std::holds_alternative<Failure>(r)) return r;
  return llvm::json::Object{{"allThreadsContinued", true}};
}

Reply Session::reverse_continue(const llvm::json::Object&) {
  return resume("-exec-continue --reverse", RunDirection::Backward);
}

Reply Session::next(const llvm::json::Object& args) {
  return resume((by_instruction(args) ? "-exec-next-instruction" : "-exec-next") + thread_option(args),
                RunDirection::Forward);
}

Reply Session::step_in(const llvm::json::Object& args) {
  return resume((by_instruction(args) ? "-exec-step-instruction" : "-exec-step") + thread_option(args),
                RunDirection::Forward);
}

Reply Session::step_out(const llvm::json::Object& args) {
  return resume("-exec-finish" + thread_option(args), RunDirection::Forward);
}

// DAP's stepBack is the reverse of `next`: back over a line (gdb's
// reverse-next), or one instruction over calls with granularity
// "instruction" (reverse-nexti).
Reply Session::step_back(const llvm::json::Object& args) {
  return resume((by_instruction(args) ? "-exec-next-instruction" : "-exec-next") + thread_option(args) +
                    " --reverse",
                RunDirection::Backward);
}

Reply Session::reverse_step_in(const llvm::json::Object& args) {
  return resume((by_instruction(args) ? "-exec-step-instruction" : "-exec-step") + thread_option(args) +
                    " --reverse",
                RunDirection::Backward);
}

// Back to the call of the current function (gdb's reverse-finish).
Reply Session::reverse_step_out(const llvm::json::Object& args) {
  return resume("-exec-finish" + thread_option(args) + " --reverse", RunDirection::Backward);
}

Reply Session::pause(const llvm::json::Object&) {
  if (!gdb_) return Failure{"the recording is not being replayed (launch first)"};
  if (!running_) return llvm::json::Value(nullptr);  // stopped already: nothing to do
  auto r = mi_checked("-exec-interrupt");
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  cause_ = RunCause::Pause;
  return llvm::json::Value(nullptr);
}

// The cancel button of a long run's progress: the run stops where it is,
// as a pause would stop it.
Reply Session::cancel(const llvm::json::Object& args) {
  auto id = args.getString("progressId");
  if (!id || progress_id_.empty() || *id != progress_id_) return llvm::json::Value(nullptr);
  return pause(args);
}

}  // namespace backstep::dap
