#include "gdbserver/pending_connection.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace backstep::gdb {
namespace {

// The most a client may send before its first packet is whole: the largest
// packet, every byte escaped, and room for acks around it.
constexpr std::size_t kMaxBytesBeforeRequest = 2 * rsp::kDefaultPacketLimit + 64;

}  // namespace

PendingConnection::PendingConnection(int fd, std::string peer, std::string peer_key, int timeout_s)
    : fd_(fd),
      peer_(std::move(peer)),
      peer_key_(std::move(peer_key)),
      deadline_(Clock::now() + std::chrono::seconds(timeout_s)) {}

PendingConnection::~PendingConnection() {
  if (fd_ >= 0) close(fd_);
}

PendingConnection::Progress PendingConnection::on_readable() {
  char buf[16384];
  ssize_t n = recv(fd_, buf, sizeof(buf), MSG_DONTWAIT);
  if (n < 0) return errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK ? Progress::Waiting : Progress::Gone;
  if (n == 0) return Progress::Gone;  // a port probe, or a client that changed its mind
  received_.append(buf, static_cast<std::size_t>(n));
  receiver_.feed(buf, static_cast<std::size_t>(n));
  while (auto event = receiver_.next_event()) {
    if (std::holds_alternative<rsp::Packet>(*event)) return Progress::Ready;
    if (auto* error = std::get_if<rsp::FramingError>(&*event)) {
      why_ = "its first packet was malformed (" + rsp::describe(*error) + ")";
      return Progress::Gone;
    }
    // Acks and interrupt bytes before any request: nothing to answer.
  }
  if (received_.size() > kMaxBytesBeforeRequest) {
    why_ = "it sent " + std::to_string(received_.size()) + " bytes without a request";
    return Progress::Gone;
  }
  return Progress::Waiting;
}

int PendingConnection::budget_ms() const {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
  return static_cast<int>(std::clamp<long long>(left, 0, 1 << 30));
}

int PendingConnection::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

}  // namespace backstep::gdb
