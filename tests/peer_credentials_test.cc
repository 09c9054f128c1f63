// Unit tests of gdb::peer_owner(): the uid that owns the other end of a
// connection, from the kernel (socket diagnostics for TCP, SO_PEERCRED for
// Unix sockets), for connections made from this process.
#define BOOST_TEST_MODULE peer_credentials
#include <boost/test/unit_test.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/fsuid.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "gdbserver/peer_credentials.h"

using backstep::gdb::NotOnThisHost;
using backstep::gdb::OwnerUnknown;
using backstep::gdb::peer_owner;
using backstep::gdb::PeerOwner;

namespace {

// A listening socket on `family`'s loopback address, a client connected to
// it, and the server's end of that connection.
struct Loopback {
  int listener = -1, client = -1, accepted = -1;
  bool available = false;

  // `make_client` creates the client's socket (so that a test can choose
  // who owns it).
  template <typename MakeClient>
  Loopback(int family, MakeClient make_client) {
    listener = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    BOOST_REQUIRE(listener >= 0);
    sockaddr_storage a{};
    socklen_t len;
    if (family == AF_INET) {
      auto* in = reinterpret_cast<sockaddr_in*>(&a);
      in->sin_family = AF_INET;
      in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof(*in);
    } else {
      auto* in6 = reinterpret_cast<sockaddr_in6*>(&a);
      in6->sin6_family = AF_INET6;
      in6->sin6_addr = in6addr_loopback;
      len = sizeof(*in6);
    }
    // A host without IPv6 on loopback cannot run the IPv6 case.
    if (bind(listener, reinterpret_cast<sockaddr*>(&a), len) != 0) return;
    BOOST_REQUIRE(listen(listener, 4) == 0);
    BOOST_REQUIRE(getsockname(listener, reinterpret_cast<sockaddr*>(&a), &len) == 0);
    client = make_client(family);
    BOOST_REQUIRE(client >= 0);
    BOOST_REQUIRE(connect(client, reinterpret_cast<sockaddr*>(&a), len) == 0);
    accepted = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    BOOST_REQUIRE(accepted >= 0);
    available = true;
  }
  explicit Loopback(int family)
      : Loopback(family, [](int f) { return socket(f, SOCK_STREAM | SOCK_CLOEXEC, 0); }) {}
  ~Loopback() {
    for (int fd : {accepted, client, listener}) {
      if (fd >= 0) close(fd);
    }
  }
};

std::string describe(const PeerOwner& owner) {
  if (const uid_t* uid = std::get_if<uid_t>(&owner)) return "uid " + std::to_string(*uid);
  if (std::holds_alternative<NotOnThisHost>(owner)) return "not on this host";
  return "unknown: " + std::get<OwnerUnknown>(owner).why;
}

void check_owner(const PeerOwner& owner, uid_t expected) {
  BOOST_TEST_INFO("peer_owner says " << describe(owner));
  BOOST_REQUIRE(std::holds_alternative<uid_t>(owner));
  BOOST_TEST(std::get<uid_t>(owner) == expected);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_tcp_client_over_ipv4_loopback_is_owned_by_this_user) {
  Loopback c(AF_INET);
  BOOST_REQUIRE(c.available);
  check_owner(peer_owner(c.accepted), geteuid());
}

BOOST_AUTO_TEST_CASE(a_tcp_client_over_ipv6_loopback_is_owned_by_this_user) {
  Loopback c(AF_INET6);
  if (!c.available) {
    BOOST_TEST_MESSAGE("SKIP: no IPv6 on loopback here");
    return;
  }
  check_owner(peer_owner(c.accepted), geteuid());
}

BOOST_AUTO_TEST_CASE(a_unix_socket_peer_is_owned_by_this_user) {
  int fds[2];
  BOOST_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
  check_owner(peer_owner(fds[0]), geteuid());
  close(fds[0]);
  close(fds[1]);
}

// The owner is the one the kernel recorded when the client's socket was
// made (its creator's fsuid), not this process's: as root, a socket made
// while a thread runs with fsuid 65534 is found as 65534's.
BOOST_AUTO_TEST_CASE(a_client_socket_made_as_another_user_is_that_users) {
  if (geteuid() != 0) {
    BOOST_TEST_MESSAGE("SKIP: needs root, to make a socket as another user");
    return;
  }
  constexpr uid_t kNobody = 65534;
  Loopback c(AF_INET, [](int family) {
    int fd = -1;
    // setfsuid() is per thread: the test's own thread keeps root's.
    std::thread([&] {
      setfsuid(kNobody);
      fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    }).join();
    return fd;
  });
  BOOST_REQUIRE(c.available);
  check_owner(peer_owner(c.accepted), kNobody);
}

BOOST_AUTO_TEST_CASE(loopback_addresses_are_told_apart_from_others) {
  auto v4 = [](const char* text) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, text, &a.sin_addr);
    return backstep::gdb::is_loopback(reinterpret_cast<sockaddr*>(&a));
  };
  auto v6 = [](const char* text) {
    sockaddr_in6 a{};
    a.sin6_family = AF_INET6;
    inet_pton(AF_INET6, text, &a.sin6_addr);
    return backstep::gdb::is_loopback(reinterpret_cast<sockaddr*>(&a));
  };
  BOOST_TEST(v4("127.0.0.1"));
  BOOST_TEST(v4("127.1.2.3"));
  BOOST_TEST(!v4("0.0.0.0"));
  BOOST_TEST(!v4("10.0.0.1"));
  BOOST_TEST(!v4("128.0.0.1"));
  BOOST_TEST(v6("::1"));
  BOOST_TEST(v6("::ffff:127.0.0.1"));
  BOOST_TEST(!v6("::"));
  BOOST_TEST(!v6("::ffff:10.0.0.1"));
  BOOST_TEST(!v6("fe80::1"));
}
