// Who is at the other end of an accepted connection, as the kernel knows it.
//
// A Unix socket's peer is told by SO_PEERCRED. A TCP peer on this host is
// found by the kernel's socket diagnostics (NETLINK_SOCK_DIAG): an exact
// lookup of the client's own socket by the connection's 4-tuple gives the
// uid that owns it. Nothing the client sends is trusted for this.
//
// A TCP peer whose socket is not on this host (in this network namespace)
// is NotOnThisHost: a remote client, or one already gone. The server
// decides what that means (a loopback peer must be on this host).
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <string>
#include <variant>

namespace backstep::gdb {

// The lookup found no socket with that 4-tuple here.
struct NotOnThisHost {};
// The owner could not be told; `why` says why, in a few words.
struct OwnerUnknown {
  std::string why;
};
using PeerOwner = std::variant<uid_t, NotOnThisHost, OwnerUnknown>;

// The owner of the client's end of connected socket `fd` (AF_UNIX, or TCP
// over AF_INET / AF_INET6).
PeerOwner peer_owner(int fd);

// 127.0.0.0/8, ::1, or ::ffff:127.x.y.z.
bool is_loopback(const sockaddr* address);

// "127.0.0.1:40000", "[::1]:40000", or "a local process (pid N)" for a
// Unix socket's peer.
std::string describe_peer(int fd);
// The peer's address without its port (a remote peer's identity); "" for a
// Unix socket or when unknown.
std::string peer_host(int fd);

}  // namespace backstep::gdb
