// `serve`: the RSP server alone (`replay`'s server and debugger:
// cli/launch_debugger.cc).
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "cli/commands.h"
#include "cli/debuggee_option.h"
#include "cli/process_cleanup.h"
#include "cli/timeline_factory.h"
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

// `serve --stdio`: gdb runs the server itself (`target remote | backstep
// serve --stdio TRACE`, CLion's 'target remote' args), and talks to it over
// the socket pair that is its stdin and stdout. The replay's echo of the
// program's output goes to stderr (gdb's), never into the protocol.
int serve_stdio(const gdb::ServerOptions& options, gdb::GdbServer::TargetFactory factory) {
  int fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
  int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (fd < 0 || null_fd < 0) {
    error(std::string("--stdio: ") + strerror(errno));
    return kExitFailure;
  }
  dup2(null_fd, STDIN_FILENO);
  dup2(STDERR_FILENO, STDOUT_FILENO);
  close(null_fd);
  clean_up_children_on_signals(ChildKind::Tracees);
  gdb::GdbServer server(options, std::move(factory));
  try {
    server.serve_connected(fd);
  } catch (const std::exception& e) {
    error(e.what());
    return kExitFailure;
  }
  end_children();
  return 0;
}

}  // namespace

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
  bool stdio = false;
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
    } else if (a == "--stdio") {
      stdio = true;
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
  if (stdio && (port_given || unix_socket || host_given || allow_remote || options.once)) {
    error("--stdio serves the one client on stdin: no --port, --unix, --host, --allow-remote or --once");
    return kExitUsage;
  }
  if (!stdio && port_given == unix_socket) {
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
  if (stdio) return serve_stdio(options, timeline_factory(dir, choice, bounds));
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

}  // namespace backstep::cli
