// initialize, launch, configurationDone, restart, disconnect: starting the
// replay and its gdb, and ending them.
#include <stdexcept>

#include "dap/json_text.h"
#include "dap/session.h"

namespace backstep::dap {

Reply Session::initialize(const llvm::json::Object& args) {
  client_progress_ = args.getBoolean("supportsProgressReporting").getValueOr(false);
  return llvm::json::Object{
      {"supportsConfigurationDoneRequest", true},
      {"supportsFunctionBreakpoints", true},
      {"supportsConditionalBreakpoints", true},
      {"supportsHitConditionalBreakpoints", true},
      {"supportsEvaluateForHovers", true},
      {"supportsStepBack", true},
      {"supportsSetVariable", false},
      {"supportsSetExpression", false},
      {"supportsRestartRequest", true},
      {"supportsDataBreakpoints", true},
      {"supportsTerminateRequest", true},
      {"supportsCancelRequest", true},
      {"supportsReadMemoryRequest", true},
      {"supportsDisassembleRequest", true},
      {"supportsInstructionBreakpoints", true},
      {"supportsModulesRequest", true},
      {"supportsLoadedSourcesRequest", true},
      {"supportsExceptionInfoRequest", true},
      {"supportsSteppingGranularity", true},
      {"supportsGotoTargetsRequest", true},
      {"exceptionBreakpointFilters", llvm::json::Array{}},
  };
}

Reply Session::launch(const llvm::json::Object& args) {
  if (gdb_) return Failure{"this session has launched already"};
  ReplayToServe what;
  what.trace = args.getString("trace").getValueOr(io_.default_trace).str();
  if (auto pid = args.getInteger("pid")) {
    if (*pid <= 0 || *pid > INT32_MAX) return Failure{"launch: \"pid\" must be a positive process id"};
    what.pid = static_cast<uint32_t>(*pid);
  }
  ServedReplay served;
  try {
    served = replays_.start(what);
  } catch (const std::exception& e) {
    return Failure{e.what()};
  }
  return connect(served, args);
}

// A replay that `backstep serve` already serves ("target": "host:port" or
// a Unix socket's path), as over an ssh tunnel from another machine.
Reply Session::attach(const llvm::json::Object& args) {
  if (gdb_) return Failure{"this session has launched already"};
  auto target = args.getString("target");
  if (!target || target->trim().empty()) {
    return Failure{"attach: \"target\" names the server: host:port, or a Unix socket's path"};
  }
  ServedReplay served;
  try {
    served = replays_.attach(target->trim().str());
  } catch (const std::exception& e) {
    return Failure{e.what()};
  }
  return connect(served, args);
}

Reply Session::connect(const ServedReplay& served, const llvm::json::Object& args) {
  stop_on_entry_ = args.getBoolean("stopOnEntry").getValueOr(false);
  std::string gdb_path = args.getString("gdbPath").getValueOr(io_.gdb).str();
  try {
    start_gdb(served, gdb_path);
  } catch (const std::exception& e) {
    gdb_.reset();
    return Failure{e.what()};
  }
  send_event_after_response("initialized");
  return llvm::json::Value(nullptr);
}

void Session::start_gdb(const ServedReplay& served, const std::string& gdb_path) {
  // Symbols come from the trace's copies of the files, through the
  // server's vFile packets ("target:"), as for `backstep replay`.
  std::vector<std::string> argv = {gdb_path, "-q", "--interpreter=mi3", "-l", "10000", "-ex", "set sysroot target:"};
  if (!served.gdb_commands.empty()) {
    argv.push_back("-x");
    argv.push_back(served.gdb_commands);
  }
  gdb_ = std::make_unique<mi::GdbProcess>(argv);
  for (const char* setup : {"-gdb-set mi-async on", "-enable-pretty-printing", "-gdb-set confirm off"}) {
    auto r = mi_checked(setup);
    if (auto* f = std::get_if<Failure>(&r)) {
      throw std::runtime_error("gdb refused `" + std::string(setup) + "`: " + f->message);
    }
  }
  cause_ = RunCause::Launch;
  direction_ = RunDirection::Forward;
  auto connected = mi_checked("-target-select extended-remote " + served.target);
  if (auto* f = std::get_if<Failure>(&connected)) {
    throw std::runtime_error("gdb could not connect to the replay: " + f->message);
  }
}

Reply Session::configuration_done(const llvm::json::Object&) {
  configured_ = true;
  if (!gdb_) return llvm::json::Value(nullptr);
  dispatch_async();  // the launch stop, if it came while breakpoints were set
  if (stop_on_entry_) {
    StopView entry;
    entry.reason = "entry";
    entry.description = "start of recording";
    entry.thread_id = last_thread_.value_or(1);
    send_event_after_response("stopped", stopped_event_body(entry));
    return llvm::json::Value(nullptr);
  }
  Reply r = resume("-exec-continue", RunDirection::Forward);
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  return llvm::json::Value(nullptr);
}

Reply Session::restart(const llvm::json::Object&) {
  if (!gdb_) return Failure{"restart: gdb is not running (launch first)"};
  // gdb's `run` on backstep's server goes back to the start of the
  // recording (vRun) and runs forward to the first breakpoint; `starti`
  // stays at the start, as the launch did with stopOnEntry.
  Reply r = stop_on_entry_ ? resume("-interpreter-exec console \"starti\"", RunDirection::Forward, RunCause::Launch)
                           : resume("-interpreter-exec console \"run\"", RunDirection::Forward);
  if (auto* f = std::get_if<Failure>(&r)) return *f;
  return llvm::json::Value(nullptr);
}

Reply Session::disconnect(const llvm::json::Object&) {
  if (gdb_) {
    try {
      if (running_) mi("-exec-interrupt");
      mi("-gdb-exit");
    } catch (const std::runtime_error&) {
      // gdb went first: nothing left to end.
    }
    if (gdb_) gdb_->wait_exit(5000);
    gdb_.reset();
  }
  done_ = true;
  return llvm::json::Value(nullptr);
}

}  // namespace backstep::dap
