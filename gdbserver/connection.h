// One client connection: bytes on a socket in, typed receive events out,
// packets out with acknowledgements until no-ack mode. The interrupt byte is
// noticed even while the target runs (poll_interrupt).
#pragma once

#include <deque>
#include <optional>
#include <string>

#include "gdbserver/rsp/framing.h"

namespace backstep::gdb {

class Connection {
 public:
  explicit Connection(int fd);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // The next complete packet; nullopt when the client disconnected.
  // Framing errors are answered (nack, or ignored in no-ack mode) here.
  std::optional<std::string> read_packet();
  void send_packet(const std::string& payload);
  void set_no_ack(bool on);
  // True if the client sent ^C since the last call (non-blocking).
  bool poll_interrupt();
  bool closed() const { return closed_; }

 private:
  bool fill(int timeout_ms);
  void write_all(const std::string& bytes);

  int fd_;
  rsp::PacketReceiver receiver_;
  bool no_ack_ = false;
  bool closed_ = false;
  bool interrupt_pending_ = false;
  std::deque<std::string> pending_packets_;  // arrived while the target ran
};

}  // namespace backstep::gdb
