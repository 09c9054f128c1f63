// `replay` (without --autopilot): the server plus gdb or lldb, connected
// over a Unix socket in a private directory (cli/replay_dir.h), with the
// recorded program's symbols loaded. Every way out ends the debugger and
// the replay and removes what was made for them.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/debuggee_option.h"
#include "cli/lldb_launch.h"
#include "cli/process_cleanup.h"
#include "cli/replay_dir.h"
#include "cli/serving_thread.h"
#include "cli/timeline_factory.h"
#include "cli/trace_dir.h"
#include "engine/trace/reader.h"
#include "gdbserver/gdb_server.h"

namespace backstep::cli {
namespace {

// gdb's argv: our commands, the connection to the server's socket, then
// `user_args`. gdb takes a Unix socket's path where it takes host:port.
std::vector<std::string> gdb_argv(const std::string& socket, const std::string& commands, const Args& user_args) {
  std::vector<std::string> argv = {"gdb", "-q", "-l", "10000", "-ex", "set sysroot target:",
                                   "-x", commands, "-ex", "target extended-remote " + socket};
  argv.insert(argv.end(), user_args.begin(), user_args.end());
  return argv;
}

// Should an exception leave launch_debugger while the debugger runs, the
// debugger goes too, before the files it uses.
struct DebuggerGuard {
  pid_t pid;
  ~DebuggerGuard() {
    if (pid <= 0) return;
    end_debugger_on_signals(0);
    kill(pid, SIGKILL);
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
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
  auto server = private_server(private_dir, dir, choice, launch.checkpoints);
  const std::string socket = private_dir.socket_path();
  std::optional<LldbLaunch> lldb;
  std::vector<std::string> argv;
  if (debugger == Debugger::Lldb) {
    lldb.emplace(dir, choice);
    argv = lldb->argv(socket, debugger_args);
    std::fprintf(stderr,
                 "backstep: in lldb, `process continue --reverse` (lldb 21 and later) runs back to the "
                 "previous breakpoint or watchpoint; `process plugin packet send bs` steps one instruction back\n");
  } else {
    argv = gdb_argv(socket, private_dir.write_gdb_commands(), debugger_args);
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
  DebuggerGuard guard{child};
  int status = 0;
  {
    ServingThread serving(std::move(server));
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    guard.pid = 0;  // reaped
    end_debugger_on_signals(0);
    // The debugger is gone: the replay's processes go before this one
    // exits (the server thread may still hold them; the process exit ends it).
    end_children();
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
}

}  // namespace backstep::cli
