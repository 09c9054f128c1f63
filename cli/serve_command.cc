// `serve`: the RSP server alone. `replay` (without --autopilot): the server
// plus gdb or lldb, connected, with the recorded program's symbols loaded.
#include <limits.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <thread>

#include "cli/commands.h"
#include "cli/debuggee_option.h"
#include "cli/lldb_launch.h"
#include "cli/process_cleanup.h"
#include "cli/replay_dir.h"
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

// `path` made absolute (gdb and lldb are told it, from their own working
// directory); "" after saying why it cannot be.
std::string absolute_path(const std::string& path) {
  if (path.empty()) {
    error("--unix needs a path");
    return "";
  }
  if (path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof(cwd))) {
    error(std::string("cannot tell the working directory for --unix ") + path + ": " + strerror(errno));
    return "";
  }
  return std::string(cwd) + "/" + path;
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
  bool host_given = false;
  bool allow_remote = false;
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
    bool takes_value = a == "--port" || a == "--host" || a == "--unix" || a == "--max-clients" ||
                       a == "--idle-timeout" || a == "--packet-timeout";
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
      host_given = true;
    } else if (a == "--unix") {
      options.unix_path = absolute_path(args[++i]);
      if (options.unix_path.empty()) return kExitUsage;
    } else if (a == "--allow-remote") {
      allow_remote = true;
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
  bool unix_socket = !options.unix_path.empty();
  if (port_given == unix_socket) {
    error(unix_socket ? "serve takes --port N or --unix PATH, not both"
                      : "serve needs --port N (0 picks a free port) or --unix PATH");
    return kExitUsage;
  }
  if (unix_socket && (host_given || allow_remote)) {
    error(std::string(host_given ? "--host" : "--allow-remote") +
          " is for TCP (--port); a Unix socket is reachable from this host only");
    return kExitUsage;
  }
  if (allow_remote) options.remote = gdb::RemoteClients::Allowed;
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
  int port = 0;
  try {
    port = server.listen();
  } catch (const gdb::NotLoopback& e) {
    error(e.what());
    return kExitUsage;
  }
  if (unix_socket) {
    remove_on_signals(options.unix_path);
    std::printf("backstep: serving %s on %s\n", dir.c_str(), options.unix_path.c_str());
    std::printf("  gdb:  gdb -ex 'target extended-remote %s'\n", options.unix_path.c_str());
    std::printf("  lldb: lldb -o 'process connect unix-connect://%s'\n", options.unix_path.c_str());
  } else {
    if (server.reachable_from_other_hosts()) {
      warning("serving on " + options.host + ":" + std::to_string(port) +
              ", which other hosts can reach (--allow-remote): anyone who connects can read the recording "
              "(its memory, environment and files) and run code as uid " + std::to_string(geteuid()) +
              ". Only clients on this host can be checked by uid; an ssh tunnel is safer: ssh -L " +
              std::to_string(port) + ":localhost:" + std::to_string(port) + " HOST");
    }
    std::printf("backstep: serving %s on %s:%d\n", dir.c_str(), options.host.c_str(), port);
    std::printf("  gdb:  gdb -ex 'target extended-remote %s:%d'\n", options.host.c_str(), port);
    std::printf("  lldb: lldb -o 'gdb-remote %s:%d'\n", options.host.c_str(), port);
  }
  std::fflush(stdout);
  server.run();
  return 0;
}

namespace {

// gdb's argv: our commands, the connection to the server's socket, then
// `user_args`. gdb takes a Unix socket's path where it takes host:port.
std::vector<std::string> gdb_argv(const std::string& socket, const std::string& commands, const Args& user_args) {
  std::vector<std::string> argv = {"gdb", "-q", "-l", "10000", "-ex", "set sysroot target:",
                                   "-x", commands, "-ex", "target extended-remote " + socket};
  argv.insert(argv.end(), user_args.begin(), user_args.end());
  return argv;
}

// Runs the server on a thread of its own; the debugger talks to it.
class ServingThread {
 public:
  explicit ServingThread(std::unique_ptr<gdb::GdbServer> server)
      : server_(std::move(server)), thread_([this] {
          try {
            server_->run();
          } catch (const std::exception& e) {
            error(e.what());
          }
          done_ = true;
        }) {}
  ~ServingThread() {
    if (done_) {
      thread_.join();
      return;
    }
    // Still serving (the debugger never connected, or left a session the
    // replay has not noticed yet): the process exit ends it. The server
    // stays, since the thread may still use it.
    thread_.detach();
    (void)server_.release();
  }

 private:
  std::unique_ptr<gdb::GdbServer> server_;
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace

int launch_debugger(const std::string& trace_arg, const Args& debugger_args, LaunchChoice launch,
                    Debugger debugger) {
  std::string dir = resolve_trace(trace_arg);
  trace::TraceReader(dir).verify_files();
  DebuggeeChoice choice{launch.pid, static_cast<DebuggeeChoice::From>(launch.from)};
  if (!check_debuggee(dir, choice)) return kExitUsage;
  signal(SIGPIPE, SIG_IGN);
  // From here on, every way out removes what this makes: the destructors,
  // or the handlers (which end the debugger first).
  clean_up_children_on_signals(ChildKind::Tracees);
  ReplayDir private_dir;
  gdb::ServerOptions options;
  options.once = true;
  options.unix_path = private_dir.socket_path();
  // Our own debugger, on the user's terminal: it may sit at the prompt for hours.
  options.limits.idle_timeout_s = 0;
  auto server = std::make_unique<gdb::GdbServer>(options, timeline_factory(dir, choice, launch.checkpoints));
  server->listen();
  std::optional<LldbLaunch> lldb;
  std::vector<std::string> argv;
  if (debugger == Debugger::Lldb) {
    lldb.emplace(dir, choice);
    argv = lldb->argv(options.unix_path, debugger_args);
    std::fprintf(stderr,
                 "backstep: in lldb, `process continue --reverse` (lldb 21 and later) runs back to the "
                 "previous breakpoint or watchpoint; `process plugin packet send bs` steps one instruction back\n");
  } else {
    argv = gdb_argv(options.unix_path, private_dir.write_gdb_commands(), debugger_args);
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
  end_debugger_on_signals(child);
  int status = 0;
  {
    ServingThread serving(std::move(server));
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    end_debugger_on_signals(0);  // reaped
    // The debugger is gone: the replay's processes go before this one
    // exits (the server thread may still hold them; the process exit ends it).
    end_children();
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
}

}  // namespace backstep::cli
