// `serve`: the RSP server alone. `replay` (without --autopilot): the server
// plus gdb or lldb, connected, with the recorded program's symbols loaded.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>

#include "cli/commands.h"
#include "cli/gdb_autoload.h"
#include "cli/debuggee_option.h"
#include "cli/lldb_launch.h"
#include "cli/process_cleanup.h"
#include "cli/trace_dir.h"
#include "engine/timeline/checkpoint_policy.h"
#include "engine/timeline/replay_timeline.h"
#include "gdbserver/gdb_server.h"
#include "gdbserver/gdb_session.h"

namespace backstep::cli {
namespace {

// Bounds on serve's options. Each client holds a replay (a few processes
// and their memory), so the count stays small; a day is the longest anyone
// means by a timeout.
constexpr long kMaxClients = 64;
constexpr long kMaxTimeoutS = 86400;
// A terabyte: more than any machine here has.
constexpr long kMaxCheckpointMemoryMib = 1L << 20;

// Runs in the process that serves the client (forked per client, or the
// server itself with --once): its children are replayed processes.
gdb::GdbServer::TargetFactory timeline_factory(const std::string& dir, DebuggeeChoice choice,
                                               CheckpointBounds bounds) {
  return [dir, choice, bounds] {
    set_children_kind(ChildKind::Tracees);
    auto timeline = std::make_unique<ReplayTimeline>(dir, choice);
    if (bounds.count) timeline->set_checkpoint_limit(bounds.count);
    if (bounds.memory_mib) timeline->set_checkpoint_memory_limit(bounds.memory_mib * 1024);
    return timeline;
  };
}

// Reads option `name`'s value into `out` if it is a whole decimal number in
// [min, max] (no sign, no spaces, no trailing text); otherwise says why,
// with `meaning`, and returns false.
bool read_number(const std::string& name, const std::string& text, long min, long max, const std::string& meaning,
                 int& out) {
  bool digits = !text.empty() && text.size() <= 12 && text.find_first_not_of("0123456789") == std::string::npos;
  long value = digits ? std::stol(text) : -1;
  if (!digits || value < min || value > max) {
    error("bad " + name.substr(2) + " '" + text + "': " + meaning);
    return false;
  }
  out = static_cast<int>(value);
  return true;
}

}  // namespace

int read_checkpoint_bound(const Args& args, std::size_t& i, CheckpointBounds& out) {
  bool count = args[i] == "--max-checkpoints";
  if (!count && args[i] != "--max-checkpoint-memory") return 0;
  if (i + 1 >= args.size()) {
    error(args[i] + " needs a value");
    return -1;
  }
  int value = 0;
  if (count) {
    if (!read_number(args[i], args[i + 1], static_cast<long>(checkpoint_policy::kMinMaxCheckpoints),
                     static_cast<long>(checkpoint_policy::kMaxMaxCheckpoints),
                     "automatic checkpoints kept, from " + std::to_string(checkpoint_policy::kMinMaxCheckpoints) +
                         " to " + std::to_string(checkpoint_policy::kMaxMaxCheckpoints),
                     value)) {
      return -1;
    }
    out.count = static_cast<std::size_t>(value);
  } else {
    if (!read_number(args[i], args[i + 1], 1, kMaxCheckpointMemoryMib,
                     "MiB the automatic checkpoints may hold, from 1 to " + std::to_string(kMaxCheckpointMemoryMib),
                     value)) {
      return -1;
    }
    out.memory_mib = static_cast<uint64_t>(value);
  }
  ++i;
  return 1;
}

int serve_command(const Args& args) {
  gdb::ServerOptions options;
  const std::string seconds = "seconds from 0 (never) to " + std::to_string(kMaxTimeoutS);
  std::string trace_arg;
  bool port_given = false;
  DebuggeeChoice choice;
  CheckpointBounds bounds;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (int read = read_checkpoint_bound(args, i, bounds)) {
      if (read < 0) return kExitUsage;
      continue;
    }
    OptionRead chosen = read_debuggee_option(args, i, /*short_p=*/false, choice);
    if (chosen == OptionRead::Bad) return kExitUsage;
    if (chosen == OptionRead::Read) continue;
    std::string a = args[i] == "-p" ? "--port" : args[i];
    bool takes_value = a == "--port" || a == "--host" || a == "--max-clients" || a == "--idle-timeout" ||
                       a == "--packet-timeout";
    if (takes_value && i + 1 >= args.size()) {
      error(a + " needs a value");
      return kExitUsage;
    }
    if (a == "--port") {
      if (!read_number(a, args[++i], 0, 65535, "a port is a number from 0 to 65535 (0 picks a free one)",
                       options.port)) {
        return kExitUsage;
      }
      port_given = true;
    } else if (a == "--max-clients") {
      if (!read_number(a, args[++i], 1, kMaxClients, "from 1 to " + std::to_string(kMaxClients) + " clients",
                       options.max_clients)) {
        return kExitUsage;
      }
    } else if (a == "--idle-timeout") {
      if (!read_number(a, args[++i], 0, kMaxTimeoutS, seconds, options.limits.idle_timeout_s)) return kExitUsage;
    } else if (a == "--packet-timeout") {
      if (!read_number(a, args[++i], 0, kMaxTimeoutS, seconds, options.limits.packet_timeout_s)) return kExitUsage;
    } else if (a == "--host") {
      options.host = args[++i];
    } else if (a == "--once") {
      options.once = true;
    } else if (a.size() > 1 && a[0] == '-') {
      error("unknown option '" + a + "' for serve");
      return kExitUsage;
    } else if (trace_arg.empty()) {
      trace_arg = a;
    } else {
      error("serve takes one trace");
      return kExitUsage;
    }
  }
  if (!port_given) {
    error("serve needs --port N (0 picks a free port)");
    return kExitUsage;
  }
  std::string dir = resolve_trace(trace_arg);
  // Open the trace and check its file copies once up front, so that a bad
  // trace fails now, not at the first client.
  trace::TraceReader(dir).verify_files();
  if (!check_debuggee(dir, choice)) return kExitUsage;
  signal(SIGPIPE, SIG_IGN);
  gdb::GdbSession::set_progress_to_stderr(true);
  // With --once this process replays; otherwise each client's own does.
  clean_up_children_on_signals(options.once ? ChildKind::Tracees : ChildKind::Clients);
  gdb::GdbServer server(options, timeline_factory(dir, choice, bounds));
  int port = server.listen();
  std::printf("backstep: serving %s on %s:%d\n", dir.c_str(), options.host.c_str(), port);
  std::printf("  gdb:  gdb -ex 'target extended-remote %s:%d'\n", options.host.c_str(), port);
  std::printf("  lldb: lldb -o 'gdb-remote %s:%d'\n", options.host.c_str(), port);
  std::fflush(stdout);
  server.run();
  return 0;
}

namespace {

// gdb commands for what the remote protocol has no words for: going back to
// a checkpoint must go through `run cN` so that gdb re-reads everything.
const char kGdbCommands[] =
    "set confirm off\n"  // gdb's own `restart` (native checkpoints) is replaced
    "define restart\n"
    "  run c$arg0\n"
    "end\n"
    "document restart\n"
    "Go back to checkpoint N (made with `monitor checkpoint`): restart N.\n"
    "end\n"
    "define when\n"
    "  monitor when\n"
    "end\n"
    "document when\n"
    "Print the current event number and exact position in the recording.\n"
    "end\n"
    "set confirm on\n";

// Writes kGdbCommands to a temporary file; returns its path.
std::string write_gdb_commands() {
  char path[] = "/tmp/backstep-gdb-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error(std::string("cannot create a temporary file: ") + strerror(errno));
  std::string text = std::string(kGdbCommands) + gdb_autoload_commands();
  ssize_t n = write(fd, text.data(), text.size());
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) throw std::runtime_error("cannot write gdb commands");
  return path;
}

// gdb's argv: our commands, the connection to `port`, then `user_args`.
std::vector<std::string> gdb_argv(int port, const std::string& commands, const Args& user_args) {
  std::string target = "target extended-remote 127.0.0.1:" + std::to_string(port);
  std::vector<std::string> argv = {"gdb", "-q", "-l", "10000", "-ex", "set sysroot target:",
                                   "-x", commands, "-ex", target};
  argv.insert(argv.end(), user_args.begin(), user_args.end());
  return argv;
}

}  // namespace

int launch_debugger(const std::string& trace_arg, const Args& debugger_args, LaunchChoice launch,
                    Debugger debugger) {
  std::string dir = resolve_trace(trace_arg);
  trace::TraceReader(dir).verify_files();
  DebuggeeChoice choice{launch.pid, static_cast<DebuggeeChoice::From>(launch.from)};
  if (!check_debuggee(dir, choice)) return kExitUsage;
  signal(SIGPIPE, SIG_IGN);
  gdb::ServerOptions options;
  options.once = true;
  // Our own debugger, on the user's terminal: it may sit at the prompt for hours.
  options.limits.idle_timeout_s = 0;
  gdb::GdbServer server(options, timeline_factory(dir, choice, launch.checkpoints));
  int port = server.listen();
  std::string commands;
  std::optional<LldbLaunch> lldb;
  std::vector<std::string> argv;
  if (debugger == Debugger::Lldb) {
    lldb.emplace(dir, choice);
    argv = lldb->argv(port, debugger_args);
    std::fprintf(stderr,
                 "backstep: in lldb, `process continue --reverse` (lldb 21 and later) runs back to the "
                 "previous breakpoint or watchpoint; `process plugin packet send bs` steps one instruction back\n");
  } else {
    commands = write_gdb_commands();
    argv = gdb_argv(port, commands, debugger_args);
  }

  pid_t child = fork();
  if (child < 0) throw std::runtime_error(std::string("fork failed: ") + strerror(errno));
  if (child == 0) {
    std::vector<char*> c_argv;
    for (auto& s : argv) c_argv.push_back(s.data());
    c_argv.push_back(nullptr);
    execvp(c_argv[0], c_argv.data());
    std::fprintf(stderr, "backstep: cannot start %s: %s%s\n", c_argv[0], strerror(errno),
                 debugger == Debugger::Lldb ? " (scripts/setup installs lldb-22; BACKSTEP_LLDB names another)" : "");
    _exit(kExitNotFound);
  }
  // gdb owns the terminal; ^C reaches it, and it interrupts us over the wire.
  signal(SIGINT, SIG_IGN);
  clean_up_children_on_signals(ChildKind::Tracees, child);
  std::thread serving([&server] {
    try {
      server.run();
    } catch (const std::exception& e) {
      error(e.what());
    }
  });
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!commands.empty()) unlink(commands.c_str());
  // The debugger is gone: the replay's processes go before this one exits
  // (the server thread may still hold them; the process exit ends it).
  end_children();
  serving.detach();
  return WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
}

}  // namespace backstep::cli
