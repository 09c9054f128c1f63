#include <csignal>

#include "cli/commands.h"
#include "cli/replay_progress.h"
#include "cli/debuggee_option.h"
#include "cli/trace_dir.h"
#include "engine/replay/replay_session.h"
#include "engine/trace/trace_error.h"

namespace backstep::cli {

int replay_command(const Args& args) {
  bool autopilot = false;
  DebuggeeChoice choice;
  std::string trace_arg;
  Args gdb_args;
  Debugger debugger = Debugger::Gdb;
  bool debugger_given = false;
  CheckpointBounds bounds;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (int read = read_checkpoint_bound(args, i, bounds)) {
      if (read < 0) return kExitUsage;
      continue;
    }
    if (a == "--") {
      gdb_args.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      break;
    }
    if (a == "--autopilot" || a == "-a") {
      autopilot = true;
      continue;
    }
    if (a == "--debugger" || a.starts_with("--debugger=")) {
      std::string name;
      if (a != "--debugger") {
        name = a.substr(std::string("--debugger=").size());
      } else if (i + 1 < args.size()) {
        name = args[++i];
      }
      if (name == "gdb") {
        debugger = Debugger::Gdb;
      } else if (name == "lldb") {
        debugger = Debugger::Lldb;
      } else {
        error("--debugger takes gdb or lldb" + (name.empty() ? std::string() : ", not '" + name + "'"));
        return kExitUsage;
      }
      debugger_given = true;
      continue;
    }
    OptionRead chosen = read_debuggee_option(args, i, /*short_p=*/true, choice);
    if (chosen == OptionRead::Bad) return kExitUsage;
    if (chosen == OptionRead::Read) {
      continue;
    } else if (a.size() > 1 && a[0] == '-') {
      error("unknown option '" + a + "' for replay");
      return kExitUsage;
    } else if (trace_arg.empty()) {
      trace_arg = a;
    } else {
      error("replay takes one trace");
      return kExitUsage;
    }
  }
  if (autopilot && choice.pid != 0) {
    error("--autopilot replays every process; -p/--onfork/--onexec choose one for a debugger");
    return kExitUsage;
  }
  if (autopilot && debugger_given) {
    error("--autopilot replays without a debugger; --debugger chooses one");
    return kExitUsage;
  }
  if (autopilot && (bounds.count || bounds.memory_mib)) {
    error("--autopilot makes no checkpoints; --max-checkpoints and --max-checkpoint-memory are for a debugger's "
          "replay");
    return kExitUsage;
  }
  if (!autopilot) {
    return launch_debugger(trace_arg, gdb_args, {choice.pid, static_cast<int>(choice.from), bounds}, debugger);
  }
  std::signal(SIGPIPE, SIG_IGN);
  std::string dir = resolve_trace(trace_arg);
  try {
    // Every copy in files/ up front; replay checks each again as it maps it.
    trace::TraceReader(dir).verify_files();
    ReplayProgress progress(dir);
    ReplayOptions options;
    options.unwatched = true;  // no debugger: positions are taken from their stored state
    if (progress.enabled()) options.progress = [&progress](uint64_t next) { progress.update(next); };
    ReplaySession session(dir, options);
    ReplayResult result = session.run_to_end();
    progress.finish(result.events, result.end == ReplayResult::End::Exited);
    switch (result.end) {
      case ReplayResult::End::Exited:
        return result.exit_status;
      case ReplayResult::End::RecordingStopped:
      case ReplayResult::End::TraceCutShort:
        error(result.message);
        return kExitFailure;
    }
  } catch (const ReplayDivergence& e) {
    error(e.what());
    return kExitFailure;
  } catch (const trace::TraceError& e) {
    error(e.what());
    return kExitFailure;
  }
  return kExitFailure;
}

}  // namespace backstep::cli
