#include "gdbserver/listener.h"

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "gdbserver/peer_credentials.h"

namespace backstep::gdb {

int listen_tcp(const std::string& host, int port, RemoteClients remote, int& bound_port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string port_text = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), port_text.c_str(), &hints, &found);
  if (rc != 0) throw std::runtime_error("cannot resolve " + host + ": " + gai_strerror(rc));
  if (remote == RemoteClients::Refused) {
    for (addrinfo* a = found; a; a = a->ai_next) {
      if (is_loopback(a->ai_addr)) continue;
      freeaddrinfo(found);
      throw NotLoopback("--host " + host +
                        " is not a loopback address: anyone who reaches it could read the recording and run "
                        "code as this user. Add --allow-remote to serve it anyway, or serve on localhost and use "
                        "an ssh tunnel (ssh -L 5555:localhost:5555 HOST)");
    }
  }
  int listen_fd = -1;
  std::string why = "no address";
  for (addrinfo* a = found; a; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      listen_fd = fd;
      break;
    }
    why = strerror(errno);
    close(fd);
  }
  freeaddrinfo(found);
  if (listen_fd < 0) throw std::runtime_error("cannot listen on " + host + ":" + port_text + ": " + why);
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  getsockname(listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
  bound_port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                 : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return listen_fd;
}

int listen_unix(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    throw std::runtime_error("cannot listen on " + path + ": a Unix socket's path has at most " +
                             std::to_string(sizeof(address.sun_path) - 1) + " bytes");
  }
  std::memcpy(address.sun_path, path.data(), path.size());
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("cannot create a Unix socket: ") + strerror(errno));
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    int e = errno;
    close(fd);
    throw std::runtime_error("cannot listen on " + path + ": " + strerror(e) +
                             (e == EADDRINUSE ? " (remove it, or choose another path)" : ""));
  }
  // Only the owner may connect at all. The peer check (SO_PEERCRED) is
  // what refuses anyone else who gets through, as in the moment between
  // bind() and chmod().
  if (chmod(path.c_str(), 0600) != 0 || ::listen(fd, SOMAXCONN) != 0) {
    int e = errno;
    close(fd);
    unlink(path.c_str());
    throw std::runtime_error("cannot listen on " + path + ": " + strerror(e));
  }
  return fd;
}

}  // namespace backstep::gdb
