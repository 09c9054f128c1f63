// `backstep dap [--port N] [-p PID] [--gdb PATH] [TRACE]`: the Debug Adapter
// Protocol front (dap/session.h) for IDEs, on stdin/stdout (an IDE starts it
// as its debug adapter) or, with --port, on a loopback TCP port that serves
// one session after another to this user only (VS Code's "debugServer").
//
// The replay echoes the program's output on this process's stdout, which is
// the DAP stream in stdio mode: stdout and stderr become pipes here, read by
// the session and sent to the client as `output` events (stderr also still
// reaches the terminal or log the adapter was started from).
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include "cli/commands.h"
#include "cli/debuggee_option.h"
#include "cli/process_cleanup.h"
#include "cli/replay_dir.h"
#include "cli/serving_thread.h"
#include "cli/timeline_factory.h"
#include "cli/trace_dir.h"
#include "dap/session.h"
#include "engine/trace/reader.h"
#include "gdbserver/listener.h"
#include "gdbserver/peer_credentials.h"

namespace backstep::cli {
namespace {

// The replay each `launch` asks for: a server on a private Unix socket,
// on a thread of this process, for the session's gdb alone.
class DapReplays : public dap::ReplayServer {
 public:
  explicit DapReplays(const LaunchChoice& defaults) : defaults_(defaults) {}
  ~DapReplays() override {
    serving_.reset();
    // The replayed processes go before the files they used.
    end_children();
  }

  dap::ServedReplay start(const dap::ReplayToServe& what) override {
    if (serving_) {
      // A launch that failed after the server started: start afresh.
      serving_.reset();
      end_children();
      private_dir_.reset();
    }
    std::string dir = resolve_trace(what.trace);
    trace::TraceReader(dir).verify_files();
    DebuggeeChoice choice{what.pid ? what.pid : defaults_.pid,
                          static_cast<DebuggeeChoice::From>(what.pid ? 0 : defaults_.from)};
    if (!check_debuggee(dir, choice)) {
      throw std::runtime_error("process " + std::to_string(choice.pid) + " is not in the trace " + dir);
    }
    private_dir_.emplace();
    serving_ = std::make_unique<ServingThread>(private_server(*private_dir_, dir, choice, defaults_.checkpoints));
    return {private_dir_->socket_path(), private_dir_->write_gdb_commands(), dir};
  }

  dap::ServedReplay attach(const std::string& target) override {
    if (!commands_dir_) {
      commands_dir_.emplace();
      commands_ = commands_dir_->write_gdb_commands();
    }
    return {target, commands_, ""};
  }

 private:
  LaunchChoice defaults_;
  std::optional<ReplayDir> private_dir_;
  std::optional<ReplayDir> commands_dir_;  // gdb's commands for an attach
  std::string commands_;
  std::unique_ptr<ServingThread> serving_;  // after private_dir_: it goes first
};

struct Options {
  std::string trace;
  std::optional<int> port;
  bool once = false;
  std::string gdb = "gdb";
  LaunchChoice launch;
};

// The program's echoed output and the adapter's own diagnostics, as pipes
// the session reads (see the file comment); what comes on stderr is also
// copied to `log_fd` (a duplicate each session owns).
std::vector<dap::OutputSource> capture_stdio(int log_fd) {
  std::vector<dap::OutputSource> sources;
  for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + strerror(errno));
    int copy = fd == STDERR_FILENO ? fcntl(log_fd, F_DUPFD_CLOEXEC, 3) : -1;
    dup2(p[1], fd);  // not close-on-exec: gdb's stderr lands here too
    close(p[1]);
    sources.push_back({p[0], fd == STDOUT_FILENO ? "stdout" : "stderr", copy});
  }
  return sources;
}

int serve_one(int in_fd, int out_fd, const Options& o, std::vector<dap::OutputSource> outputs) {
  DapReplays replays(o.launch);
  int log_fd = -1;
  for (const dap::OutputSource& source : outputs) {
    if (source.copy_fd >= 0) log_fd = source.copy_fd;
  }
  dap::SessionIo io{.in_fd = in_fd,
                    .out_fd = out_fd,
                    .outputs = std::move(outputs),
                    .gdb = o.gdb,
                    .log_fd = log_fd,
                    .default_trace = o.trace};
  dap::Session session(std::move(io), replays);
  return session.run();
}

int serve_port(const Options& o) {
  int bound = 0;
  int listen_fd = gdb::listen_tcp("127.0.0.1", *o.port, gdb::RemoteClients::Refused, bound);
  // Said before stderr becomes the sessions' pipe: a script waits for it.
  std::fprintf(stderr, "backstep: dap: listening on 127.0.0.1:%d\n", bound);
  // Refusals are said here, between sessions, where nobody reads the pipes.
  int log_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
  for (;;) {
    int fd = accept4(listen_fd, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0 && errno == EINTR) continue;
    if (fd < 0) throw std::runtime_error(std::string("accept: ") + strerror(errno));
    // Whoever gets in runs code as this user (a debugger's function
    // calls): only this user's own processes are served.
    gdb::PeerOwner owner = gdb::peer_owner(fd);
    const uid_t* uid = std::get_if<uid_t>(&owner);
    if (!uid || *uid != geteuid()) {
      dprintf(log_fd, "backstep: dap: refused a client from %s: this adapter serves only uid %u\n",
              gdb::describe_peer(fd).c_str(), static_cast<unsigned>(geteuid()));
      close(fd);
      continue;
    }
    int status = serve_one(fd, fd, o, capture_stdio(log_fd));
    close(fd);
    if (o.once) return status == 0 ? 0 : kExitFailure;
  }
}

}  // namespace

int dap_command(const Args& args) {
  Options o;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--port" && i + 1 < args.size()) {
      char* end = nullptr;
      long port = std::strtol(args[++i].c_str(), &end, 10);
      if (*end != '\0' || port < 0 || port > 65535) {
        error("--port takes a TCP port number (0: any free one), not '" + args[i] + "'");
        return kExitUsage;
      }
      o.port = static_cast<int>(port);
      continue;
    }
    if (a == "--once") {
      o.once = true;
      continue;
    }
    if (a == "--gdb" && i + 1 < args.size()) {
      o.gdb = args[++i];
      continue;
    }
    if (int read = read_checkpoint_bound(args, i, o.launch.checkpoints)) {
      if (read < 0) return kExitUsage;
      continue;
    }
    DebuggeeChoice choice;
    OptionRead chosen = read_debuggee_option(args, i, /*short_p=*/true, choice);
    if (chosen == OptionRead::Bad) return kExitUsage;
    if (chosen == OptionRead::Read) {
      o.launch.pid = choice.pid;
      o.launch.from = static_cast<int>(choice.from);
    } else if (a.size() > 1 && a[0] == '-') {
      error("unknown option '" + a + "' for dap");
      return kExitUsage;
    } else if (o.trace.empty()) {
      o.trace = a;
    } else {
      error("dap takes one trace");
      return kExitUsage;
    }
  }
  if (o.once && !o.port) {
    error("--once is for --port (on stdin/stdout the adapter serves one session)");
    return kExitUsage;
  }
  signal(SIGPIPE, SIG_IGN);
  clean_up_children_on_signals(ChildKind::Tracees);
  try {
    if (o.port) return serve_port(o);
    // The DAP stream keeps the original stdin/stdout; the program and gdb
    // get neither.
    int in_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    int out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in_fd < 0 || out_fd < 0 || null_fd < 0) throw std::runtime_error(std::string("dup: ") + strerror(errno));
    dup2(null_fd, STDIN_FILENO);
    close(null_fd);
    int log_fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    int status = serve_one(in_fd, out_fd, o, capture_stdio(log_fd));
    return status == 0 ? 0 : kExitFailure;
  } catch (const gdb::NotLoopback& e) {
    error(std::string("dap: ") + e.what());
    return kExitUsage;
  } catch (const std::exception& e) {
    error(std::string("dap: ") + e.what());
    return kExitFailure;
  }
}

}  // namespace backstep::cli
