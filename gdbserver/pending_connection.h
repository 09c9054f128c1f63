// A connection accepted but not yet served. It holds no client slot and
// starts no replay until a whole, well-formed first packet has arrived: a
// client that connects and stays silent (or sends garbage) costs the server
// one descriptor and a small buffer, for `timeout_s` at most. Nothing here
// blocks: the server's accept loop drives it, as it drives refusals.
#pragma once

#include <chrono>
#include <string>

#include "gdbserver/rsp/framing.h"

namespace backstep::gdb {

class PendingConnection {
 public:
  // Takes `fd` (closed on destruction unless released). `peer` names the
  // client in messages; `peer_key` is what the per-peer limit counts.
  PendingConnection(int fd, std::string peer, std::string peer_key, int timeout_s);
  ~PendingConnection();
  PendingConnection(const PendingConnection&) = delete;
  PendingConnection& operator=(const PendingConnection&) = delete;

  enum class Progress { Waiting, Ready, Gone };
  // Reads what the client sent. Ready once a packet is complete; Gone when
  // the client left (why() empty) or is to be dropped (why() says why).
  Progress on_readable();
  // Milliseconds until the wait for the first packet gives up (0: now).
  int budget_ms() const;

  int fd() const { return fd_; }
  const std::string& peer() const { return peer_; }
  const std::string& peer_key() const { return peer_key_; }
  const std::string& why() const { return why_; }
  // Every byte received so far, the first packet among them, for the
  // session to read again from the start.
  const std::string& received() const { return received_; }
  // The socket, now the caller's.
  int release();

 private:
  using Clock = std::chrono::steady_clock;
  int fd_;
  std::string peer_;
  std::string peer_key_;
  Clock::time_point deadline_;
  rsp::PacketReceiver receiver_;
  std::string received_;
  std::string why_;
};

}  // namespace backstep::gdb
