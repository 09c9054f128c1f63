// One client connection: bytes on a socket in, typed receive events out,
// packets out with acknowledgements until no-ack mode. The interrupt byte is
// noticed even while the target runs (poll_interrupt).
//
// A client cannot hold the connection forever without talking: waiting for
// a request ends after `idle_timeout_s` without a complete packet, or after
// `packet_timeout_s` once a packet has begun (a client that sends one byte a
// second), and a reply the client does not read for `idle_timeout_s` ends it
// too. The connection then counts as closed; dropped_because() says why.
#pragma once

#include <chrono>
#include <deque>
#include <optional>
#include <string>
#include <string_view>

#include "gdbserver/rsp/framing.h"

namespace backstep::gdb {

struct ConnectionLimits {
  int idle_timeout_s = 0;    // 0: wait for the next request forever
  int packet_timeout_s = 0;  // 0: a started packet may take forever
};

class Connection {
 public:
  // `received`: bytes already read from `fd` (by the server, waiting for
  // the first packet), taken as if they had just arrived.
  explicit Connection(int fd, ConnectionLimits limits = {}, std::string_view received = {});
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // The next complete packet; nullopt when the client disconnected or was
  // dropped. Framing errors are answered (nack, or ignored in no-ack mode)
  // here, and a packet longer than the limit gets an error reply.
  std::optional<std::string> read_packet();
  void send_packet(const std::string& payload);
  void set_no_ack(bool on);
  // True if the client sent ^C since the last call (non-blocking).
  bool poll_interrupt();
  bool closed() const { return closed_; }
  // Why the server ended the connection (a timeout); nullopt if the client
  // left by itself.
  const std::optional<std::string>& dropped_because() const { return dropped_because_; }

 private:
  using Clock = std::chrono::steady_clock;
  bool fill(int timeout_ms);
  void take(const char* bytes, std::size_t size);
  void write_all(const std::string& bytes);
  // Milliseconds until the wait for a request (that began at `waiting_since`)
  // runs out; -1 when there is no limit. 0 sets dropped_because_.
  int wait_budget_ms(Clock::time_point waiting_since);

  int fd_;
  ConnectionLimits limits_;
  rsp::PacketReceiver receiver_;
  bool no_ack_ = false;
  bool closed_ = false;
  bool interrupt_pending_ = false;
  std::deque<std::string> pending_packets_;  // arrived while the target ran
  Clock::time_point packet_started_;         // when the packet now arriving began
  std::optional<std::string> dropped_because_;
};

}  // namespace backstep::gdb
