#include "gdbserver/peer_credentials.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace backstep::gdb {
namespace {

// The kernel's TCP_NEW_SYN_RECV (not in the userspace headers): a request
// sock, which has no owner.
constexpr int kTcpNewSynRecv = 12;

// One end of a TCP connection, in the form the diagnostics take.
struct Endpoint {
  int family = 0;  // AF_INET or AF_INET6
  uint32_t address[4] = {};  // network order; AF_INET uses [0]
  uint16_t port = 0;         // network order
};

// `a` as an Endpoint; a v4-mapped IPv6 address becomes the AF_INET one,
// since the socket at that end is an AF_INET socket.
bool to_endpoint(const sockaddr_storage& a, Endpoint& out) {
  if (a.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&a);
    out.family = AF_INET;
    out.address[0] = in->sin_addr.s_addr;
    out.port = in->sin_port;
    return true;
  }
  if (a.ss_family != AF_INET6) return false;
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&a);
  out.port = in6->sin6_port;
  if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
    out.family = AF_INET;
    std::memcpy(&out.address[0], &in6->sin6_addr.s6_addr[12], 4);
  } else {
    out.family = AF_INET6;
    std::memcpy(out.address, &in6->sin6_addr, 16);
  }
  return true;
}

PeerOwner unix_owner(int fd) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
    return OwnerUnknown{std::string("SO_PEERCRED failed: ") + strerror(errno)};
  }
  return cred.uid;
}

// Asks the kernel for the socket whose local end is `client` and whose
// remote end is `server`: the client's own socket.
PeerOwner diagnose(const Endpoint& client, const Endpoint& server) {
  int nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (nl < 0) return OwnerUnknown{std::string("cannot open a NETLINK_SOCK_DIAG socket: ") + strerror(errno)};
  struct {
    nlmsghdr header;
    inet_diag_req_v2 request;
  } message{};
  message.header.nlmsg_len = sizeof(message);
  message.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  message.header.nlmsg_flags = NLM_F_REQUEST;  // one socket, not a dump
  message.header.nlmsg_seq = 1;
  message.request.sdiag_family = static_cast<uint8_t>(client.family);
  message.request.sdiag_protocol = IPPROTO_TCP;
  message.request.idiag_states = ~0u;
  message.request.id.idiag_sport = client.port;
  message.request.id.idiag_dport = server.port;
  std::memcpy(message.request.id.idiag_src, client.address, sizeof(client.address));
  std::memcpy(message.request.id.idiag_dst, server.address, sizeof(server.address));
  message.request.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
  message.request.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  PeerOwner result = OwnerUnknown{"the socket diagnostics gave no answer"};
  if (sendto(nl, &message, sizeof(message), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) < 0) {
    result = OwnerUnknown{std::string("the socket diagnostics request failed: ") + strerror(errno)};
    close(nl);
    return result;
  }
  // The kernel answers while handling the request: the reply is queued
  // already, and waiting for one could only hang.
  alignas(nlmsghdr) char reply[8192];
  ssize_t n = recv(nl, reply, sizeof(reply), MSG_DONTWAIT);
  close(nl);
  if (n < 0) return OwnerUnknown{std::string("no reply from the socket diagnostics: ") + strerror(errno)};
  int left = static_cast<int>(n);
  for (const auto* h = reinterpret_cast<const nlmsghdr*>(reply); NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
    if (h->nlmsg_type == NLMSG_ERROR) {
      const auto* e = static_cast<const nlmsgerr*>(NLMSG_DATA(h));
      if (h->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr))) break;
      if (e->error == -ENOENT) return NotOnThisHost{};
      return OwnerUnknown{std::string("the socket diagnostics failed: ") + strerror(-e->error)};
    }
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) continue;
    const auto* found = static_cast<const inet_diag_msg*>(NLMSG_DATA(h));
    // A socket in TIME_WAIT (its owner closed it) reports uid 0, a
    // listener or a request sock is not the client's end: none of them
    // tells who the client is.
    if (found->idiag_state == TCP_TIME_WAIT || found->idiag_state == TCP_LISTEN ||
        found->idiag_state == kTcpNewSynRecv) {
      return OwnerUnknown{"the client's socket is closed (state " + std::to_string(found->idiag_state) + ")"};
    }
    if (found->id.idiag_sport != client.port || found->id.idiag_dport != server.port) {
      return OwnerUnknown{"the socket diagnostics answered for another socket"};
    }
    return static_cast<uid_t>(found->idiag_uid);
  }
  return result;
}

}  // namespace

PeerOwner peer_owner(int fd) {
  sockaddr_storage local{}, remote{};
  socklen_t local_len = sizeof(local), remote_len = sizeof(remote);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&remote), &remote_len) != 0) {
    return OwnerUnknown{std::string("cannot read the connection's addresses: ") + strerror(errno)};
  }
  if (local.ss_family == AF_UNIX) return unix_owner(fd);
  Endpoint client, server;
  if (!to_endpoint(remote, client) || !to_endpoint(local, server) || client.family != server.family) {
    return OwnerUnknown{"not a TCP connection over IPv4 or IPv6"};
  }
  return diagnose(client, server);
}

bool is_loopback(const sockaddr* address) {
  if (address->sa_family == AF_INET) {
    uint32_t a = ntohl(reinterpret_cast<const sockaddr_in*>(address)->sin_addr.s_addr);
    return (a >> 24) == 127;
  }
  if (address->sa_family != AF_INET6) return false;
  const in6_addr& a = reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr;
  return IN6_IS_ADDR_LOOPBACK(&a) || (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127);
}

namespace {

// The peer's address as text (an IPv6 one in brackets), and its port.
bool peer_address(int fd, std::string& host, int& port) {
  sockaddr_storage peer{};
  socklen_t len = sizeof(peer);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len) != 0) return false;
  char text[INET6_ADDRSTRLEN] = "?";
  if (peer.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&peer);
    inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof(text));
    host = std::string("[") + text + "]";
    port = ntohs(a->sin6_port);
    return true;
  }
  if (peer.ss_family != AF_INET) return false;
  const auto* a = reinterpret_cast<const sockaddr_in*>(&peer);
  inet_ntop(AF_INET, &a->sin_addr, text, sizeof(text));
  host = text;
  port = ntohs(a->sin_port);
  return true;
}

}  // namespace

std::string describe_peer(int fd) {
  std::string host;
  int port = 0;
  if (peer_address(fd, host, port)) return host + ":" + std::to_string(port);
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.pid > 0) {
    return "a local process (pid " + std::to_string(cred.pid) + ")";
  }
  return "?";
}

std::string peer_host(int fd) {
  std::string host;
  int port = 0;
  return peer_address(fd, host, port) ? host : std::string();
}

}  // namespace backstep::gdb
