// Unit tests of gdb::Connection over a socketpair: when a waiting client is
// dropped (a packet's deadline runs from its first byte, so a client that
// sends one byte at a time cannot hold the connection), and the error reply
// to a packet over the size limit.
#define BOOST_TEST_MODULE connection
#include <boost/test/unit_test.hpp>

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "gdbserver/connection.h"
#include "gdbserver/rsp/framing.h"

using backstep::gdb::Connection;
using backstep::gdb::ConnectionLimits;

namespace {

struct Pair {
  int server = -1, client = -1;
  Pair() {
    int fds[2];
    BOOST_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) == 0);
    server = fds[0];
    client = fds[1];
  }
  ~Pair() { close(client); }  // the Connection closes `server`
  void send(const std::string& bytes) const {
    BOOST_REQUIRE(::send(client, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size()));
  }
  // Everything the server wrote until it has written `want` bytes.
  std::string receive(std::size_t want) const {
    std::string out;
    char buf[4096];
    while (out.size() < want) {
      ssize_t n = recv(client, buf, std::min(sizeof(buf), want - out.size()), 0);
      BOOST_REQUIRE(n > 0);
      out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
  }
};

// Sends `unit` every `pace` until stopped (or `max` times); counts them.
class Dribbler {
 public:
  Dribbler(int fd, std::string first, std::string unit, std::chrono::milliseconds pace, int max)
      : thread_([=, this] {
          ::send(fd, first.data(), first.size(), MSG_NOSIGNAL);
          for (int i = 0; i < max && !stop_; ++i) {
            std::this_thread::sleep_for(pace);  // the client's pace, not a synchronisation
            if (::send(fd, unit.data(), unit.size(), MSG_NOSIGNAL) <= 0) break;
            ++sent_;
          }
          finished_ = true;
        }) {}
  ~Dribbler() {
    stop_ = true;
    thread_.join();
  }
  bool finished() const { return finished_; }
  int sent() const { return sent_; }

 private:
  std::atomic<bool> stop_{false}, finished_{false};
  std::atomic<int> sent_{0};
  std::thread thread_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_packet_sent_one_byte_at_a_time_is_dropped_at_its_deadline) {
  Pair pair;
  Connection connection(pair.server, ConnectionLimits{.idle_timeout_s = 0, .packet_timeout_s = 1});
  // A packet that never ends, a byte every 50 ms, for up to 60 s: a timer
  // restarted by each byte would never fire while the bytes keep coming.
  Dribbler loris(pair.client, "$qSupported:", "x", std::chrono::milliseconds(50), 1200);
  BOOST_CHECK(!connection.read_packet());
  BOOST_CHECK(!loris.finished());
  BOOST_CHECK_GT(loris.sent(), 0);
  BOOST_REQUIRE(connection.dropped_because());
  BOOST_CHECK_NE(connection.dropped_because()->find("--packet-timeout"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(bytes_between_packets_do_not_keep_an_idle_client) {
  Pair pair;
  Connection connection(pair.server, ConnectionLimits{.idle_timeout_s = 1, .packet_timeout_s = 0});
  pair.send("$qC#b4");
  auto first = connection.read_packet();
  BOOST_REQUIRE(first);
  BOOST_CHECK_EQUAL(*first, "qC");
  // Garbage and acks, never a request.
  Dribbler idler(pair.client, "+", "+", std::chrono::milliseconds(50), 1200);
  BOOST_CHECK(!connection.read_packet());
  BOOST_CHECK(!idler.finished());
  BOOST_REQUIRE(connection.dropped_because());
  BOOST_CHECK_NE(connection.dropped_because()->find("--idle-timeout"), std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_client_that_leaves_is_not_dropped) {
  Pair pair;
  Connection connection(pair.server, ConnectionLimits{.idle_timeout_s = 1, .packet_timeout_s = 1});
  pair.send("$m10");
  shutdown(pair.client, SHUT_WR);
  BOOST_CHECK(!connection.read_packet());
  BOOST_CHECK(!connection.dropped_because());
}

BOOST_AUTO_TEST_CASE(an_oversized_packet_gets_an_error_reply_and_the_session_goes_on) {
  for (bool no_ack : {false, true}) {
    Pair pair;
    Connection connection(pair.server);
    connection.set_no_ack(no_ack);
    std::string big = "qZ" + std::string(backstep::rsp::kDefaultPacketLimit + 16, 'A');
    std::thread writer([&] { pair.send(backstep::rsp::encode_packet(big) + "$qC#b4"); });
    auto packet = connection.read_packet();
    writer.join();
    BOOST_REQUIRE(packet);
    BOOST_CHECK_EQUAL(*packet, "qC");
    std::string expected = std::string(no_ack ? "" : "+") + backstep::rsp::encode_packet("E18") + (no_ack ? "" : "+");
    BOOST_CHECK_EQUAL(pair.receive(expected.size()), expected);
  }
}
