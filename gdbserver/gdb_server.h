// The listening side. Each client gets its own debugging session, at the
// start of the recording, in a process of its own (forked at accept): a
// replay is ptrace-based and must live on the thread that started it, and
// a process per client also means one client's replay, crash or slowness
// never touches another's. Up to `max_clients` are served at once; one more
// is refused with an error reply. A client that disconnects (or a port
// probe) does not end the server.
#pragma once

#include <sys/types.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/timeline/debug_target.h"
#include "gdbserver/connection.h"

namespace backstep::gdb {

class Refusal;

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;          // 0: any free port
  bool once = false;     // serve one client in this process, then return
  int max_clients = 4;   // clients served at once
  // Dropping clients that hold a session without using it (0: never).
  ConnectionLimits limits{.idle_timeout_s = 1800, .packet_timeout_s = 20};
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
  struct Client {
    pid_t pid;
    int pidfd;  // readable once the client's process has exited
    int number;
  };
  // Serves one client on this thread until it leaves; returns when done.
  void serve_client(int fd, int number);
  void start_client(int fd, const std::string& peer);
  void reap(std::size_t index);
  void refuse(int fd, const std::string& peer);

  ServerOptions options_;
  TargetFactory make_target_;
  int listen_fd_ = -1;
  int clients_seen_ = 0;
  std::vector<Client> clients_;
  std::vector<std::unique_ptr<Refusal>> refusals_;
};

}  // namespace backstep::gdb
