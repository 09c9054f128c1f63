// The server's listening socket: TCP on a host's addresses, or a Unix
// socket at a path. A TCP address that other hosts can reach is refused
// unless the caller allows it: whoever reaches the port can read the
// recording and run code as the server's user.
#pragma once

#include <stdexcept>
#include <string>

namespace backstep::gdb {

// Whether the server may listen on an address other hosts can reach.
enum class RemoteClients { Refused, Allowed };

// listen_tcp() was asked for an address that is not a loopback one
// without RemoteClients::Allowed.
class NotLoopback : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Listens on the first of `host`'s addresses that binds, on `port` (0: any
// free one, told in `bound_port`); returns the socket. Throws NotLoopback,
// or std::runtime_error when it cannot listen.
int listen_tcp(const std::string& host, int port, RemoteClients remote, int& bound_port);
// Listens on a new Unix socket at `path`, mode 0600 (an existing file is an
// error, never replaced); returns the socket. The caller removes `path`.
int listen_unix(const std::string& path);

}  // namespace backstep::gdb
