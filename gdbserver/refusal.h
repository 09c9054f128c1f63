// A client turned away: the server is full, or the client is not one it
// serves (another user, too many connections from one peer). It is answered the way
// gdb reports best: its first request gets an "E.<message>" reply (gdb
// prints "Remote failure reply: E.<message>"), then the server stops
// writing and lingers until the client closes, so the reply is not lost to
// a reset. Nothing here blocks: the server's accept loop drives it.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "gdbserver/rsp/framing.h"

namespace backstep::gdb {

class Refusal {
 public:
  // Takes `fd` (closed on destruction); gives up after `timeout_s`.
  Refusal(int fd, std::string message, int timeout_s);
  ~Refusal();
  Refusal(const Refusal&) = delete;
  Refusal& operator=(const Refusal&) = delete;

  int fd() const { return fd_; }
  // Reads what the client sent; false once the refusal is over.
  bool on_readable();
  // Bytes the server read from the client before refusing it, taken as if
  // they had just arrived; false once the refusal is over.
  bool take(std::string_view received);
  // Milliseconds until the refusal gives up (0: now).
  int budget_ms() const;

 private:
  using Clock = std::chrono::steady_clock;
  int fd_;
  std::string message_;
  Clock::time_point deadline_;
  rsp::PacketReceiver receiver_;
  bool replied_ = false;
};

}  // namespace backstep::gdb
