#include "gdbserver/refusal.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace backstep::gdb {

Refusal::Refusal(int fd, std::string message, int timeout_s)
    : fd_(fd), message_(std::move(message)), deadline_(Clock::now() + std::chrono::seconds(timeout_s)) {}

Refusal::~Refusal() { close(fd_); }

bool Refusal::on_readable() {
  char buf[4096];
  ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
  if (n < 0) return errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK;
  if (n == 0) return false;  // the client closed
  return take(std::string_view(buf, static_cast<std::size_t>(n)));
}

bool Refusal::take(std::string_view received) {
  if (replied_) return true;  // lingering: whatever else comes is dropped
  receiver_.feed(received);
  while (auto event = receiver_.next_event()) {
    if (!std::holds_alternative<rsp::Packet>(*event)) continue;
    // Ack (the client may be in ack mode) and answer, all in one small
    // write that fits any socket buffer.
    std::string out = "+" + rsp::encode_packet("E." + message_);
    if (send(fd_, out.data(), out.size(), MSG_DONTWAIT | MSG_NOSIGNAL) != static_cast<ssize_t>(out.size())) {
      return false;
    }
    shutdown(fd_, SHUT_WR);
    replied_ = true;
    break;
  }
  return true;
}

int Refusal::budget_ms() const {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

}  // namespace backstep::gdb
