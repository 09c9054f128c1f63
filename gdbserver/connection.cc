#include "gdbserver/connection.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "values/log.h"
#include "gdbserver/rsp/reply.h"

namespace backstep::gdb {

Connection::Connection(int fd, ConnectionLimits limits, std::string_view received) : fd_(fd), limits_(limits) {
  if (limits_.idle_timeout_s > 0) {
    // A client that stops reading our replies: send() gives up after this.
    timeval tv{limits_.idle_timeout_s, 0};
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  }
  if (!received.empty()) take(received.data(), received.size());
}

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
  take(buf, static_cast<std::size_t>(n));
  return true;
}

void Connection::take(const char* bytes, std::size_t size) {
  // The packet timeout runs from a packet's first byte: note when the packet
  // still incomplete after these bytes began (within these bytes if the
  // receiver was between packets, or if something completed in them).
  bool was_between = receiver_.state() == rsp::PacketReceiver::State::Idle;
  bool had_events = receiver_.has_event();
  receiver_.feed(bytes, size);
  bool completed = receiver_.has_event() && !had_events;
  if (receiver_.state() != rsp::PacketReceiver::State::Idle && (was_between || completed)) {
    packet_started_ = Clock::now();
  }
}

int Connection::wait_budget_ms(Clock::time_point waiting_since) {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  auto now = Clock::now();
  std::optional<Clock::time_point> deadline;
  std::string why;
  if (limits_.idle_timeout_s > 0) {
    deadline = waiting_since + seconds(limits_.idle_timeout_s);
    why = "no request for " + std::to_string(limits_.idle_timeout_s) + " s (--idle-timeout)";
  }
  if (limits_.packet_timeout_s > 0 && receiver_.state() != rsp::PacketReceiver::State::Idle) {
    // A packet begun while we were busy counts from when we began waiting.
    auto packet = std::max(packet_started_, waiting_since) + seconds(limits_.packet_timeout_s);
    if (!deadline || packet < *deadline) {
      deadline = packet;
      why = "a packet unfinished after " + std::to_string(limits_.packet_timeout_s) + " s (--packet-timeout)";
    }
  }
  if (!deadline) return -1;
  if (now >= *deadline) {
    dropped_because_ = why;
    return 0;
  }
  // Round up, so that a wake-up just before the deadline does not spin.
  auto left = std::chrono::ceil<milliseconds>(*deadline - now).count();
  return static_cast<int>(std::min<long long>(left, 1 << 30));
}

std::optional<std::string> Connection::read_packet() {
  if (!pending_packets_.empty()) {
    std::string p = std::move(pending_packets_.front());
    pending_packets_.pop_front();
    return p;
  }
  Clock::time_point waiting_since = Clock::now();
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
        if (std::holds_alternative<rsp::PacketTooLong>(*error)) {
          // The client sent more than the PacketSize we advertised. Its
          // bytes arrived (the rest is skipped), so: received, refused.
          if (!no_ack_) write_all("+");
          send_packet(rsp::error(rsp::ErrorCode::LimitReached));
        } else if (!no_ack_) {
          write_all("-");
        }
      }
      // Acks and nacks of our replies: we never resend (the transport is
      // reliable; gdb only nacks on its own checksum errors).
    }
    if (closed_) return std::nullopt;
    int budget = wait_budget_ms(waiting_since);
    if (budget == 0) {
      closed_ = true;
      return std::nullopt;
    }
    fill(budget);
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
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      dropped_because_ = "a reply unread for " + std::to_string(limits_.idle_timeout_s) + " s (--idle-timeout)";
    }
    if (n <= 0) {
      closed_ = true;
      return;
    }
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace backstep::gdb
