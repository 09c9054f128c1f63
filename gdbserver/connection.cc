#include "gdbserver/connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "engine/core/log.h"

namespace backstep::gdb {

Connection::Connection(int fd) : fd_(fd) {}

Connection::~Connection() { close(fd_); }

bool Connection::fill(int timeout_ms) {
  pollfd p{fd_, POLLIN, 0};
  int r = poll(&p, 1, timeout_ms);
  if (r < 0 && errno == EINTR) return true;
  if (r <= 0) return r == 0;
  char buf[16384];
  ssize_t n = recv(fd_, buf, sizeof(buf), 0);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) {
    closed_ = true;
    return false;
  }
  receiver_.feed(buf, static_cast<std::size_t>(n));
  return true;
}

std::optional<std::string> Connection::read_packet() {
  if (!pending_packets_.empty()) {
    std::string p = std::move(pending_packets_.front());
    pending_packets_.pop_front();
    return p;
  }
  for (;;) {
    while (auto event = receiver_.next_event()) {
      if (auto* packet = std::get_if<rsp::Packet>(&*event)) {
        if (!no_ack_) write_all("+");
        BS_LOG(Cli, "<- " << packet->payload.substr(0, 200));
        return packet->payload;
      }
      if (std::holds_alternative<rsp::Interrupt>(*event)) continue;  // ^C while stopped: nothing to stop
      if (auto* error = std::get_if<rsp::FramingError>(&*event)) {
        BS_LOG(Cli, "framing error: " << rsp::describe(*error));
        if (!no_ack_) write_all("-");
      }
      // Acks and nacks of our replies: we never resend (the transport is
      // reliable; gdb only nacks on its own checksum errors).
    }
    if (closed_ || !fill(-1)) {
      if (closed_) return std::nullopt;
    }
  }
}

void Connection::send_packet(const std::string& payload) {
  BS_LOG(Cli, "-> " << payload.substr(0, 200));
  write_all(rsp::encode_packet(payload));
}

void Connection::set_no_ack(bool on) {
  no_ack_ = on;
  receiver_.set_no_ack(on);
}

bool Connection::poll_interrupt() {
  if (!closed_) fill(0);
  while (auto event = receiver_.next_event()) {
    if (std::holds_alternative<rsp::Interrupt>(*event)) interrupt_pending_ = true;
    if (auto* packet = std::get_if<rsp::Packet>(&*event)) {
      if (!no_ack_) write_all("+");
      pending_packets_.push_back(packet->payload);  // answered after the stop
    }
  }
  bool was = interrupt_pending_ || closed_;
  interrupt_pending_ = false;
  return was;
}

void Connection::write_all(const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size() && !closed_) {
    ssize_t n = send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      closed_ = true;
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace backstep::gdb
