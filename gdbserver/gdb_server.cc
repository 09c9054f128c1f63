#include "gdbserver/gdb_server.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "engine/core/log.h"
#include "gdbserver/connection.h"
#include "gdbserver/gdb_session.h"

namespace backstep::gdb {

GdbServer::GdbServer(ServerOptions options, TargetFactory make_target)
    : options_(std::move(options)), make_target_(std::move(make_target)) {}

GdbServer::~GdbServer() {
  if (listen_fd_ >= 0) close(listen_fd_);
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
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 4) == 0) {
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

void GdbServer::run() {
  for (;;) {
    int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      throw std::runtime_error(std::string("accept failed: ") + strerror(errno));
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    {
      Connection connection(fd);
      // Each client starts at the beginning of the recording.
      std::unique_ptr<DebugTarget> target = make_target_();
      GdbSession session(*target, connection);
      session.serve();
      BS_LOG(Cli, "client done");
    }
    if (options_.once) return;
  }
}

}  // namespace backstep::gdb
