// The listening side. Each client gets its own debugging session, at the
// start of the recording, in a process of its own (forked once its first
// packet has arrived): a replay is ptrace-based and must live on the thread
// that started it, and a process per client also means one client's
// replay, crash or slowness never touches another's. Up to `max_clients`
// are served at once; one more is refused with an error reply. A client
// that disconnects (or a port probe) does not end the server.
//
// Only the user who runs the server is served: the owner of each client's
// socket is asked of the kernel (gdbserver/peer_credentials.h), and any
// other user is refused. A connection holds no slot until it has sent a
// whole packet; one that stays silent is dropped after a few seconds, and
// one peer may hold only so many connections at once.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/timeline/debug_target.h"
#include "gdbserver/connection.h"
#include "gdbserver/listener.h"

namespace backstep::gdb {

class PendingConnection;
class Refusal;

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;            // 0: any free port
  std::string unix_path;   // non-empty: listen on this Unix socket instead of TCP
  RemoteClients remote = RemoteClients::Refused;
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

  // Binds and listens (throws std::runtime_error on failure, NotLoopback
  // for a remote address that is not allowed); returns the port (0 for a
  // Unix socket, which the server removes when it is destroyed).
  int listen();
  // Serves clients until killed (or one client, with `once`), or until
  // stop() is asked.
  void run();
  // Serves the one client already connected on `fd`, on this thread, with
  // no listening socket: gdb's `target remote | backstep serve --stdio`,
  // whose pipe is a socket pair. Throws std::runtime_error, serving nothing,
  // when `fd` is not a socket of this server's user.
  void serve_connected(int fd);
  // From another thread: run() returns without serving anyone else. True
  // when it will, or has (its `once` client has left); false while it
  // serves its `once` client, whose leaving ends it.
  bool stop();
  // After listen(): whether it listens on an address other hosts can reach.
  bool reachable_from_other_hosts() const;

 private:
  struct Client {
    pid_t pid;
    int pidfd;  // readable once the client's process has exited
    int number;
    std::string peer_key;
  };
  // Serves one client on this thread until it leaves; returns when done.
  // `received`: what the client sent before it was served.
  void serve_client(int fd, int number, const std::string& received);
  void start_client(PendingConnection& pending);
  void reap(std::size_t index);
  // A newly accepted connection: refused, or waiting for its first packet.
  void admit(int fd);
  // Its first packet has arrived: served, or refused when the server is
  // full. True when the server is done (with `once`).
  bool first_packet(PendingConnection& pending);
  // Answers the client's first request with "E.<why>" (`received` may hold
  // it already), then closes.
  void refuse(int fd, const std::string& why, const std::string& received = {});
  std::size_t connections_of(const std::string& peer_key) const;

  ServerOptions options_;
  TargetFactory make_target_;
  int listen_fd_ = -1;
  int stop_fd_ = -1;  // an eventfd: readable once stop() is asked
  enum class Phase { Accepting, Serving, Stopped };
  std::atomic<Phase> phase_{Phase::Accepting};
  bool unix_bound_ = false;  // options_.unix_path is ours to remove
  int clients_seen_ = 0;
  std::vector<Client> clients_;
  std::vector<std::unique_ptr<Refusal>> refusals_;
  std::vector<std::unique_ptr<PendingConnection>> pending_;
};

}  // namespace backstep::gdb
