#include "gdbserver/gdb_server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "values/log.h"
#include "gdbserver/gdb_session.h"
#include "gdbserver/listener.h"
#include "gdbserver/peer_credentials.h"
#include "gdbserver/pending_connection.h"
#include "gdbserver/refusal.h"

namespace backstep::gdb {
namespace {

// Refused clients waiting for their reply at once; beyond this a refused
// client is closed without one (a flood must not grow the server).
constexpr std::size_t kMaxRefusals = 16;
// How long a refused client may take to send its first request.
constexpr int kRefusalTimeoutS = 10;
// Out of file descriptors: how often to try accepting again.
constexpr int kAcceptRetryMs = 1000;
// How long a new connection may take to send its first packet before it is
// dropped: it holds no slot meanwhile, but a descriptor.
constexpr int kFirstPacketTimeoutS = 10;
// Connections waiting for their first packet, from everyone at once.
constexpr std::size_t kMaxPending = 64;
// Beyond the server's --max-clients, the connections one peer (a local
// user, or a remote address) may hold at once, waiting or served.
constexpr std::size_t kPendingPerPeer = 8;

void say(const std::string& message) { std::fprintf(stderr, "backstep: %s\n", message.c_str()); }

// Whom the per-peer limit counts `fd`'s client as ("uid 1000", "address
// 10.0.0.2"), or, with `refused` set, why the client is not served.
std::string identify(int fd, RemoteClients remote, std::optional<std::string>& refused) {
  uid_t owner = geteuid();
  std::string serves = "this server serves only uid " + std::to_string(owner) + " (its owner)";
  PeerOwner found = peer_owner(fd);
  if (const uid_t* uid = std::get_if<uid_t>(&found)) {
    if (*uid != owner) refused = "it runs as uid " + std::to_string(*uid) + ", " + serves;
    return "uid " + std::to_string(*uid);
  }
  sockaddr_storage peer{};
  socklen_t len = sizeof(peer);
  // (A peer without an address counts as local: it is never let in unchecked.)
  bool loopback = getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0 || peer.ss_family == AF_UNIX ||
                  is_loopback(reinterpret_cast<sockaddr*>(&peer));
  const auto* unknown = std::get_if<OwnerUnknown>(&found);
  // A client of this host whose owner cannot be told is refused. One from
  // elsewhere is a remote client: --allow-remote trusts whoever it is.
  if (unknown && (loopback || remote == RemoteClients::Refused)) {
    refused = "cannot tell which user it runs as (" + unknown->why + "); " + serves;
    return "";
  }
  // No socket of this host's is the client's end: a remote client, unless
  // it came over loopback (then its socket is gone; whose was it?).
  if (!unknown && loopback) {
    refused = "cannot tell which user it runs as (the kernel knows no socket for its end of the connection); " +
              serves;
  } else if (remote == RemoteClients::Refused) {
    refused = "it connects from another host, and remote clients need --allow-remote";
  }
  return "address " + peer_host(fd);
}

}  // namespace

GdbServer::GdbServer(ServerOptions options, TargetFactory make_target)
    : options_(std::move(options)), make_target_(std::move(make_target)) {
  stop_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop_fd_ < 0) throw std::runtime_error(std::string("eventfd failed: ") + strerror(errno));
}

GdbServer::~GdbServer() {
  if (listen_fd_ >= 0) close(listen_fd_);
  close(stop_fd_);
  if (unix_bound_) unlink(options_.unix_path.c_str());
  // Clients' processes outlive the server only as long as their clients
  // stay; the server's own end is not theirs to share.
  for (const Client& c : clients_) close(c.pidfd);
}

int GdbServer::listen() {
  if (options_.unix_path.empty()) {
    int port = 0;
    listen_fd_ = listen_tcp(options_.host, options_.port, options_.remote, port);
    return port;
  }
  listen_fd_ = listen_unix(options_.unix_path);
  unix_bound_ = true;
  return 0;
}

bool GdbServer::reachable_from_other_hosts() const {
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  if (getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len) != 0) return false;
  if (bound.ss_family == AF_UNIX) return false;
  return !is_loopback(reinterpret_cast<sockaddr*>(&bound));
}

void GdbServer::serve_client(int fd, int number, const std::string& received) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // fails harmlessly on a Unix socket
  Connection connection(fd, options_.limits, received);
  // Each client starts at the beginning of the recording.
  std::unique_ptr<DebugTarget> target = make_target_();
  {
    GdbSession session(*target, connection);
    session.serve();
  }
  if (connection.dropped_because()) {
    say("dropped client " + std::to_string(number) + ": " + *connection.dropped_because());
  }
  BS_LOG(Cli, "client " << number << " done");
}

void GdbServer::serve_connected(int fd) {
  std::optional<std::string> refused;
  identify(fd, options_.remote, refused);
  if (refused) throw std::runtime_error("not serving the client on stdin: " + *refused);
  serve_client(fd, ++clients_seen_, "");
}

void GdbServer::start_client(PendingConnection& pending) {
  int number = ++clients_seen_;
  const std::string& peer = pending.peer();
  std::fflush(nullptr);  // nothing buffered may be written twice
  pid_t pid = fork();
  if (pid < 0) {
    say(std::string("cannot serve the client from ") + peer + ": fork failed: " + strerror(errno));
    return;
  }
  if (pid == 0) {
    // The client's process: only its own socket stays open.
    close(listen_fd_);
    unix_bound_ = false;  // the server's to remove, not this process's
    for (const Client& c : clients_) close(c.pidfd);
    refusals_.clear();
    int fd = pending.release();
    std::string received = pending.received();
    pending_.clear();
    int status = 0;
    try {
      serve_client(fd, number, received);
    } catch (const std::exception& e) {
      say("client " + std::to_string(number) + " (" + peer + "): " + e.what());
      status = 1;
    }
    std::fflush(nullptr);
    _exit(status);
  }
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) {
    // Without a pidfd the exit cannot be noticed in poll(); wait for this
    // client instead of losing count of it.
    say(std::string("pidfd_open failed (") + strerror(errno) + "): serving client " + std::to_string(number) +
        " alone");
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return;
  }
  BS_LOG(Cli, "client " << number << " from " << peer << ": process " << pid);
  clients_.push_back({pid, pidfd, number, pending.peer_key()});
}

void GdbServer::reap(std::size_t index) {
  Client c = clients_[index];
  clients_.erase(clients_.begin() + static_cast<std::ptrdiff_t>(index));
  close(c.pidfd);
  int status = 0;
  while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status)) {
    say("client " + std::to_string(c.number) + "'s session died of signal " + std::to_string(WTERMSIG(status)));
  }
}

std::size_t GdbServer::connections_of(const std::string& peer_key) const {
  auto same = [&](const auto& c) { return c.peer_key == peer_key; };
  return static_cast<std::size_t>(std::count_if(clients_.begin(), clients_.end(), same) +
                                  std::count_if(pending_.begin(), pending_.end(),
                                                [&](const auto& p) { return p->peer_key() == peer_key; }));
}

void GdbServer::admit(int fd) {
  std::string peer = describe_peer(fd);
  std::optional<std::string> refused;
  std::string key = identify(fd, options_.remote, refused);
  if (refused) {
    say("refused a client from " + peer + ": " + *refused);
    refuse(fd, "backstep serve refused the connection: " + *refused);
    return;
  }
  std::size_t per_peer = static_cast<std::size_t>(options_.max_clients) + kPendingPerPeer;
  if (connections_of(key) >= per_peer) {
    say("refused a client from " + peer + ": " + key + " already holds " + std::to_string(per_peer) +
        " connections, the most one peer may (--max-clients + " + std::to_string(kPendingPerPeer) + ")");
    refuse(fd, "backstep serve is busy: " + key + " already holds " + std::to_string(per_peer) +
                   " connections, the most one peer may (--max-clients + " + std::to_string(kPendingPerPeer) +
                   "); try again later");
    return;
  }
  if (pending_.size() >= kMaxPending) {
    say("closed a connection from " + peer + ": " + std::to_string(kMaxPending) +
        " connections are waiting for their first packet already");
    close(fd);
    return;
  }
  pending_.push_back(std::make_unique<PendingConnection>(fd, peer, key, kFirstPacketTimeoutS));
}

bool GdbServer::stop() {
  Phase accepting = Phase::Accepting;
  if (!phase_.compare_exchange_strong(accepting, Phase::Stopped)) return accepting == Phase::Stopped;
  std::uint64_t one = 1;
  if (write(stop_fd_, &one, sizeof one) < 0) {
    // Only a full counter fails, and it is already readable.
  }
  return true;
}

bool GdbServer::first_packet(PendingConnection& pending) {
  if (options_.once) {
    Phase accepting = Phase::Accepting;
    if (!phase_.compare_exchange_strong(accepting, Phase::Serving)) return true;  // stopped
    // The one client: the others waiting, or being refused, are let go.
    int fd = pending.release();
    std::string received = pending.received();
    pending_.clear();
    refusals_.clear();
    serve_client(fd, ++clients_seen_, received);
    phase_ = Phase::Stopped;
    return true;
  }
  if (static_cast<int>(clients_.size()) >= options_.max_clients) {
    say("refused a client from " + pending.peer() + ": " + std::to_string(clients_.size()) +
        " clients connected (--max-clients " + std::to_string(options_.max_clients) + ")");
    refuse(pending.release(),
           "backstep serve is busy: " + std::to_string(clients_.size()) +
               " clients connected, the most it serves at once (--max-clients); try again later",
           pending.received());
    return false;
  }
  start_client(pending);
  return false;
}

void GdbServer::refuse(int fd, const std::string& why, const std::string& received) {
  if (refusals_.size() >= kMaxRefusals) {
    close(fd);
    return;
  }
  auto refusal = std::make_unique<Refusal>(fd, why, kRefusalTimeoutS);
  if (refusal->take(received)) refusals_.push_back(std::move(refusal));
}

void GdbServer::run() {
  // Non-blocking, so that a connection that went away between poll() and
  // accept() (or a retry after running out of descriptors) cannot block.
  fcntl(listen_fd_, F_SETFL, fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
  bool accept_paused = false;  // out of file descriptors
  for (;;) {
    if (phase_ == Phase::Stopped) return;
    // [0] the listening socket, then each client's pidfd, each refusal,
    // each connection waiting for its first packet, and last the stop.
    std::vector<pollfd> fds;
    fds.push_back({listen_fd_, static_cast<short>(accept_paused ? 0 : POLLIN), 0});
    for (const Client& c : clients_) fds.push_back({c.pidfd, POLLIN, 0});
    int timeout = accept_paused ? kAcceptRetryMs : -1;
    auto wake_by = [&timeout](int left) { timeout = timeout < 0 ? left : std::min(timeout, left); };
    for (const auto& r : refusals_) {
      fds.push_back({r->fd(), POLLIN, 0});
      wake_by(r->budget_ms());
    }
    for (const auto& p : pending_) {
      fds.push_back({p->fd(), POLLIN, 0});
      wake_by(p->budget_ms());
    }
    fds.push_back({stop_fd_, POLLIN, 0});
    if (poll(fds.data(), fds.size(), timeout) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll failed: ") + strerror(errno));
    }
    // Back to front, so that erasing keeps the earlier indices valid.
    std::size_t n_clients = clients_.size();
    std::size_t n_refusals = refusals_.size();
    for (std::size_t i = pending_.size(); i-- > 0;) {
      using Progress = PendingConnection::Progress;
      PendingConnection& p = *pending_[i];
      Progress progress = fds[1 + n_clients + n_refusals + i].revents ? p.on_readable() : Progress::Waiting;
      if (progress == Progress::Waiting && p.budget_ms() > 0) continue;
      if (progress == Progress::Ready) {
        std::unique_ptr<PendingConnection> ready = std::move(pending_[i]);
        pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
        if (first_packet(*ready)) return;
        continue;
      }
      if (progress == Progress::Waiting) {
        say("dropped a connection from " + p.peer() + ": no request within " + std::to_string(kFirstPacketTimeoutS) +
            " s");
      } else if (!p.why().empty()) {
        say("dropped a connection from " + p.peer() + ": " + p.why());
      }
      pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    for (std::size_t i = n_refusals; i-- > 0;) {
      const pollfd& p = fds[1 + n_clients + i];
      bool going = p.revents == 0 || refusals_[i]->on_readable();
      if (!going || refusals_[i]->budget_ms() == 0) refusals_.erase(refusals_.begin() + static_cast<std::ptrdiff_t>(i));
    }
    for (std::size_t i = n_clients; i-- > 0;) {
      if (fds[1 + i].revents) reap(i);
    }
    if (accept_paused || fds[0].revents) {
      accept_paused = false;
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN) continue;
        if (errno == EMFILE || errno == ENFILE) {
          // Out of descriptors: leave the connection queued and retry
          // later (a client may end meanwhile) rather than spin.
          say(std::string("accept failed: ") + strerror(errno));
          accept_paused = true;
          continue;
        }
        throw std::runtime_error(std::string("accept failed: ") + strerror(errno));
      }
      admit(fd);
    }
  }
}

}  // namespace backstep::gdb
