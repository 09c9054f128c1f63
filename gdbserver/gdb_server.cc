#include "gdbserver/gdb_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "engine/core/log.h"
#include "gdbserver/gdb_session.h"
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

void say(const std::string& message) { std::fprintf(stderr, "backstep: %s\n", message.c_str()); }

std::string describe_peer(int fd) {
  sockaddr_storage peer{};
  socklen_t len = sizeof(peer);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return "?";
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (peer.ss_family == AF_INET6) {
    auto* a = reinterpret_cast<sockaddr_in6*>(&peer);
    inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
    port = ntohs(a->sin6_port);
    return std::string("[") + host + "]:" + std::to_string(port);
  }
  auto* a = reinterpret_cast<sockaddr_in*>(&peer);
  inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
  port = ntohs(a->sin_port);
  return std::string(host) + ":" + std::to_string(port);
}

}  // namespace

GdbServer::GdbServer(ServerOptions options, TargetFactory make_target)
    : options_(std::move(options)), make_target_(std::move(make_target)) {}

GdbServer::~GdbServer() {
  if (listen_fd_ >= 0) close(listen_fd_);
  // Clients' processes outlive the server only as long as their clients
  // stay; the server's own end is not theirs to share.
  for (const Client& c : clients_) close(c.pidfd);
}

int GdbServer::listen() {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port = std::to_string(options_.port);
  int rc = getaddrinfo(options_.host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) throw std::runtime_error("cannot resolve " + options_.host + ": " + gai_strerror(rc));
  std::string why = "no address";
  for (addrinfo* a = found; a; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      listen_fd_ = fd;
      break;
    }
    why = strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  if (listen_fd_ < 0) {
    throw std::runtime_error("cannot listen on " + options_.host + ":" + port + ": " + why);
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  return ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
}

void GdbServer::serve_client(int fd, int number) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  Connection connection(fd, options_.limits);
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

void GdbServer::start_client(int fd, const std::string& peer) {
  int number = ++clients_seen_;
  std::fflush(nullptr);  // nothing buffered may be written twice
  pid_t pid = fork();
  if (pid < 0) {
    say(std::string("cannot serve the client from ") + peer + ": fork failed: " + strerror(errno));
    close(fd);
    return;
  }
  if (pid == 0) {
    // The client's process: only its own socket stays open.
    close(listen_fd_);
    for (const Client& c : clients_) close(c.pidfd);
    refusals_.clear();
    int status = 0;
    try {
      serve_client(fd, number);
    } catch (const std::exception& e) {
      say("client " + std::to_string(number) + " (" + peer + "): " + e.what());
      status = 1;
    }
    std::fflush(nullptr);
    _exit(status);
  }
  close(fd);
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
  clients_.push_back({pid, pidfd, number});
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

void GdbServer::refuse(int fd, const std::string& peer) {
  std::string why = "backstep serve is busy: " + std::to_string(clients_.size()) +
                    " clients connected, the most it serves at once (--max-clients); try again later";
  say("refused a client from " + peer + ": " + std::to_string(clients_.size()) + " clients connected (--max-clients " +
      std::to_string(options_.max_clients) + ")");
  if (refusals_.size() >= kMaxRefusals) {
    close(fd);
    return;
  }
  refusals_.push_back(std::make_unique<Refusal>(fd, why, kRefusalTimeoutS));
}

void GdbServer::run() {
  if (options_.once) {
    for (;;) {
      int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) {
        serve_client(fd, ++clients_seen_);
        return;
      }
      if (errno != EINTR && errno != ECONNABORTED) {
        throw std::runtime_error(std::string("accept failed: ") + strerror(errno));
      }
    }
  }
  // Non-blocking, so that a connection that went away between poll() and
  // accept() (or a retry after running out of descriptors) cannot block.
  fcntl(listen_fd_, F_SETFL, fcntl(listen_fd_, F_GETFL) | O_NONBLOCK);
  bool accept_paused = false;  // out of file descriptors
  for (;;) {
    // [0] the listening socket, then each client's pidfd, then each refusal.
    std::vector<pollfd> fds;
    fds.push_back({listen_fd_, static_cast<short>(accept_paused ? 0 : POLLIN), 0});
    for (const Client& c : clients_) fds.push_back({c.pidfd, POLLIN, 0});
    int timeout = accept_paused ? kAcceptRetryMs : -1;
    for (const auto& r : refusals_) {
      fds.push_back({r->fd(), POLLIN, 0});
      int left = r->budget_ms();
      timeout = timeout < 0 ? left : std::min(timeout, left);
    }
    if (poll(fds.data(), fds.size(), timeout) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("poll failed: ") + strerror(errno));
    }
    // Back to front, so that erasing keeps the earlier indices valid.
    std::size_t n_clients = clients_.size();
    for (std::size_t i = refusals_.size(); i-- > 0;) {
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
      std::string peer = describe_peer(fd);
      if (static_cast<int>(clients_.size()) >= options_.max_clients) {
        refuse(fd, peer);
      } else {
        start_client(fd, peer);
      }
    }
  }
}

}  // namespace backstep::gdb
