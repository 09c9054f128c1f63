// The listening side: accepts clients one after another and gives each a
// fresh debugging session at the start of the recording. A client that
// disconnects (or a port probe) does not end the server.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "engine/timeline/debug_target.h"

namespace backstep::gdb {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;        // 0: any free port
  bool once = false;   // exit after the first client
};

class GdbServer {
 public:
  using TargetFactory = std::function<std::unique_ptr<DebugTarget>()>;
  GdbServer(ServerOptions options, TargetFactory make_target);
  ~GdbServer();

  // Binds and listens (throws std::runtime_error on failure); returns the port.
  int listen();
  // Serves clients until killed (or one client, with `once`).
  void run();

 private:
  ServerOptions options_;
  TargetFactory make_target_;
  int listen_fd_ = -1;
};

}  // namespace backstep::gdb
