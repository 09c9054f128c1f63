#include "gdbserver/rsp/framing.h"

#include "gdbserver/rsp/hex.h"

namespace backstep::rsp {

namespace {

constexpr char kPacketStart = '$';
constexpr char kNotificationStart = '%';
constexpr char kPacketEnd = '#';
constexpr char kEscape = '}';
constexpr char kRunLength = '*';
constexpr char kEscapeXor = 0x20;
// A repeat character c stands for (c - 29) more copies of the previous byte;
// ' ' (3) .. '~' (97) are the printable ones.
constexpr int kRunLengthBias = 29;
constexpr char kFirstRepeatChar = ' ';
constexpr char kLastRepeatChar = '~';

bool is_reserved(char c) {
  return c == kPacketStart || c == kPacketEnd || c == kEscape || c == kRunLength;
}

std::string two_hex(std::uint8_t value) { return hex_le(value, 1); }

std::string frame(char start, std::string_view payload) {
  std::string body = encode_binary(payload);
  std::string out;
  out.reserve(body.size() + 4);
  out.push_back(start);
  out += body;
  out.push_back(kPacketEnd);
  out += two_hex(checksum(body));
  return out;
}

std::string printable(char c) {
  if (c >= 0x20 && c < 0x7f) return std::string("'") + c + "'";
  return "0x" + two_hex(static_cast<std::uint8_t>(c));
}

}  // namespace

PacketReceiver::PacketReceiver(std::size_t packet_limit) : limit_(packet_limit) {}

void PacketReceiver::feed(const char* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i) step(data[i]);
}

std::optional<ReceiveEvent> PacketReceiver::next_event() {
  if (events_.empty()) return std::nullopt;
  ReceiveEvent event = std::move(events_.front());
  events_.pop_front();
  return event;
}

void PacketReceiver::start_packet() {
  payload_.clear();
  sum_ = 0;
  pending_error_.reset();
  discard_digits_left_ = 0;
  state_ = State::PacketData;
}

void PacketReceiver::fail_now(FramingError error) {
  events_.emplace_back(std::move(error));
  payload_.clear();
  pending_error_.reset();
}

void PacketReceiver::append(char decoded, std::size_t count) {
  if (count > limit_ - payload_.size()) {
    fail_now(PacketTooLong{limit_});
    state_ = State::Discard;
    return;
  }
  payload_.append(count, decoded);
}

void PacketReceiver::step(char c) {
  // A '$' anywhere inside a packet means its end was lost: drop it and
  // receive the new one (in Discard the drop was already reported).
  if (c == kPacketStart && state_ != State::Idle) {
    if (state_ != State::Discard) fail_now(PacketRestarted{});
    start_packet();
    return;
  }
  switch (state_) {
    case State::Idle:
      if (c == kPacketStart) {
        start_packet();
      } else if (c == kAckByte) {
        events_.emplace_back(Ack{});
      } else if (c == kNackByte) {
        events_.emplace_back(Nack{});
      } else if (c == kInterruptByte) {
        events_.emplace_back(Interrupt{});
      } else {
        ++garbage_bytes_;
      }
      return;
    case State::PacketData:
      packet_byte(c);
      return;
    case State::Escape:
      if (c == kPacketEnd) {
        if (!pending_error_) pending_error_ = BadEscape{};
        state_ = State::Checksum1;
        return;
      }
      sum_ += static_cast<std::uint8_t>(c);
      state_ = State::PacketData;
      append(static_cast<char>(c ^ kEscapeXor), 1);
      return;
    case State::RunLength:
      if (c == kPacketEnd) {
        if (!pending_error_) pending_error_ = BadRunLength{};
        state_ = State::Checksum1;
        return;
      }
      sum_ += static_cast<std::uint8_t>(c);
      state_ = State::PacketData;
      if (payload_.empty() || c < kFirstRepeatChar || c > kLastRepeatChar) {
        if (!pending_error_) pending_error_ = BadRunLength{};
        return;
      }
      append(payload_.back(), static_cast<std::size_t>(c - kRunLengthBias));
      return;
    case State::Checksum1:
      checksum_first_ = c;
      state_ = State::Checksum2;
      return;
    case State::Checksum2:
      state_ = State::Idle;
      finish_packet(checksum_first_, c);
      return;
    case State::Discard:
      if (discard_digits_left_ > 0) {
        if (--discard_digits_left_ == 0) state_ = State::Idle;
      } else if (c == kPacketEnd) {
        discard_digits_left_ = 2;
      }
      return;
  }
}

void PacketReceiver::packet_byte(char c) {
  if (c == kPacketEnd) {
    state_ = State::Checksum1;
    return;
  }
  sum_ += static_cast<std::uint8_t>(c);
  if (c == kEscape) {
    state_ = State::Escape;
  } else if (c == kRunLength) {
    state_ = State::RunLength;
  } else {
    append(c, 1);
  }
}

void PacketReceiver::finish_packet(char first, char second) {
  if (!no_ack_) {
    auto hi = hex_digit_value(first);
    auto lo = hex_digit_value(second);
    if (!hi || !lo) {
      fail_now(BadChecksumDigits{first, second});
      return;
    }
    auto expected = static_cast<std::uint8_t>((*hi << 4) | *lo);
    if (expected != sum_) {
      fail_now(ChecksumMismatch{expected, sum_});
      return;
    }
  }
  if (pending_error_) {
    fail_now(*pending_error_);
    return;
  }
  events_.emplace_back(Packet{std::move(payload_)});
  payload_.clear();
}

std::string describe(const FramingError& error) {
  struct Describer {
    std::string operator()(const ChecksumMismatch& e) const {
      return "checksum mismatch: packet says 0x" + two_hex(e.expected) + ", bytes sum to 0x" +
             two_hex(e.calculated);
    }
    std::string operator()(const BadChecksumDigits& e) const {
      return "checksum digits are not hex: " + printable(e.first) + " " + printable(e.second);
    }
    std::string operator()(const PacketTooLong& e) const {
      return "packet longer than " + std::to_string(e.limit) + " bytes";
    }
    std::string operator()(const BadRunLength&) const {
      return "bad run-length encoding ('*' with nothing to repeat or an invalid count)";
    }
    std::string operator()(const BadEscape&) const { return "'}' escape right before '#'"; }
    std::string operator()(const PacketRestarted&) const {
      return "'$' inside a packet: the partial packet was dropped";
    }
  };
  return std::visit(Describer{}, error);
}

std::uint8_t checksum(std::string_view raw) {
  std::uint8_t sum = 0;
  for (char c : raw) sum += static_cast<std::uint8_t>(c);
  return sum;
}

std::string encode_binary(std::string_view data) {
  std::string out;
  out.reserve(data.size());
  for (char c : data) {
    if (is_reserved(c)) {
      out.push_back(kEscape);
      out.push_back(static_cast<char>(c ^ kEscapeXor));
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::optional<std::string> decode_binary(std::string_view escaped) {
  std::string out;
  out.reserve(escaped.size());
  for (std::size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] != kEscape) {
      out.push_back(escaped[i]);
      continue;
    }
    if (++i == escaped.size()) return std::nullopt;
    out.push_back(static_cast<char>(escaped[i] ^ kEscapeXor));
  }
  return out;
}

std::string encode_packet(std::string_view payload) { return frame(kPacketStart, payload); }

std::string encode_notification(std::string_view payload) {
  return frame(kNotificationStart, payload);
}

}  // namespace backstep::rsp
