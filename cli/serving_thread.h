// The replay server on a thread of its own, for a debugger (or the DAP
// adapter's gdb) in this process's care: `replay` and `dap`.
#pragma once

#include <memory>
#include <thread>

#include "cli/commands.h"
#include "cli/replay_dir.h"
#include "cli/timeline_factory.h"
#include "gdbserver/gdb_server.h"

namespace backstep::cli {

class ServingThread {
 public:
  explicit ServingThread(std::unique_ptr<gdb::GdbServer> server)
      : server_(std::move(server)), thread_([s = server_.get()] {
          // `s`, not server_: the destructor may give server_ up before
          // this thread first runs.
          try {
            s->run();
          } catch (const std::exception& e) {
            error(e.what());
          }
        }) {}
  ~ServingThread() {
    // Never connected: the server stops accepting and the thread ends here.
    // Serving: the debugger has gone, so its connection is closed and the
    // session ends with it, but a replay the session waits on may hold it a
    // while longer; the process exit ends it, and the server stays, since
    // the thread still uses it.
    if (server_->stop()) {
      thread_.join();
      return;
    }
    thread_.detach();
    (void)server_.release();
  }
  ServingThread(const ServingThread&) = delete;
  ServingThread& operator=(const ServingThread&) = delete;

 private:
  std::unique_ptr<gdb::GdbServer> server_;
  std::thread thread_;
};

// The server for a debugger this process runs itself (`replay`, `dap`):
// one client, on the private directory's Unix socket, never dropped for
// idling (the debugger may sit stopped for hours), listening already.
inline std::unique_ptr<gdb::GdbServer> private_server(const ReplayDir& private_dir, const std::string& trace_dir,
                                                      const DebuggeeChoice& choice, CheckpointBounds bounds) {
  gdb::ServerOptions options;
  options.once = true;
  options.unix_path = private_dir.socket_path();
  options.limits.idle_timeout_s = 0;
  auto server = std::make_unique<gdb::GdbServer>(options, timeline_factory(trace_dir, choice, bounds));
  server->listen();
  return server;
}

}  // namespace backstep::cli
