// RSP framing: the bytes on the wire <-> packet payloads.
//
// Receiving is a byte-at-a-time state machine, so a packet split across
// reads, an escape, a run-length sequence or an interrupt byte between two
// packets is never a special case: feed() whatever recv() returned and pop
// the events that became complete.
//
//   Idle --'$'--> PacketData --'#'--> Checksum1 --> Checksum2 --> Idle
//                  |  '}' -> Escape     -> PacketData
//                  |  '*' -> RunLength  -> PacketData
//                  |  over the limit    -> Discard (to the '#' and its two
//                  |                       digits, or to the next '$')
//
// The payload of a Packet is fully decoded: '}' escapes undone, '*' runs
// expanded. The checksum covers the raw bytes between '$' and '#'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace backstep::rsp {

inline constexpr std::size_t kDefaultPacketLimit = 0x20000;
inline constexpr char kInterruptByte = '\x03';
inline constexpr char kAckByte = '+';
inline constexpr char kNackByte = '-';

// A complete packet, decoded.
struct Packet {
  std::string payload;
  bool operator==(const Packet&) const = default;
};
// 0x03 between packets: the client asks the running target to stop.
struct Interrupt {
  bool operator==(const Interrupt&) const = default;
};
// '+' / '-' from the client, acknowledging our last packet (ack mode only).
struct Ack {
  bool operator==(const Ack&) const = default;
};
struct Nack {
  bool operator==(const Nack&) const = default;
};

// The two checksum digits do not match the sum of the packet's bytes.
struct ChecksumMismatch {
  std::uint8_t expected;    // the sender's digits
  std::uint8_t calculated;  // what the bytes add up to
  bool operator==(const ChecksumMismatch&) const = default;
};
// The two characters after '#' are not hex digits (ack mode only).
struct BadChecksumDigits {
  char first;
  char second;
  bool operator==(const BadChecksumDigits&) const = default;
};
// The decoded payload grew beyond the receiver's limit; the rest of that
// packet is skipped.
struct PacketTooLong {
  std::size_t limit;
  bool operator==(const PacketTooLong&) const = default;
};
// A '*' with nothing before it to repeat, or a repeat character outside
// ' '..'~' (counts 3..97).
struct BadRunLength {
  bool operator==(const BadRunLength&) const = default;
};
// A '}' escape immediately followed by '#'.
struct BadEscape {
  bool operator==(const BadEscape&) const = default;
};
// A '$' arrived before the current packet's '#': the partial packet is
// dropped and the new one is received.
struct PacketRestarted {
  bool operator==(const PacketRestarted&) const = default;
};

using FramingError = std::variant<ChecksumMismatch, BadChecksumDigits, PacketTooLong, BadRunLength,
                                  BadEscape, PacketRestarted>;

// One line, for logs: "checksum mismatch: packet says 0x12, bytes sum to 0x34".
std::string describe(const FramingError& error);

using ReceiveEvent = std::variant<Packet, Interrupt, Ack, Nack, FramingError>;

class PacketReceiver {
 public:
  enum class State { Idle, PacketData, Escape, RunLength, Checksum1, Checksum2, Discard };

  explicit PacketReceiver(std::size_t packet_limit = kDefaultPacketLimit);

  // Consumes every byte; complete events queue up in arrival order.
  void feed(const char* data, std::size_t size);
  void feed(std::string_view bytes) { feed(bytes.data(), bytes.size()); }

  bool has_event() const { return !events_.empty(); }
  // The oldest queued event, removed from the queue; nullopt when empty.
  std::optional<ReceiveEvent> next_event();

  // After QStartNoAckMode the client still sends checksum digits, but
  // nobody checks them any more: they are consumed, never verified.
  void set_no_ack(bool no_ack) { no_ack_ = no_ack; }
  bool no_ack() const { return no_ack_; }

  // Bytes skipped between packets that were none of '$', '+', '-', 0x03.
  std::size_t garbage_bytes() const { return garbage_bytes_; }
  State state() const { return state_; }
  std::size_t packet_limit() const { return limit_; }

 private:
  void step(char c);
  void start_packet();
  void packet_byte(char c);
  void append(char decoded, std::size_t count);
  void finish_packet(char first, char second);
  void fail_now(FramingError error);

  std::size_t limit_;
  bool no_ack_ = false;
  State state_ = State::Idle;
  std::string payload_;
  std::uint8_t sum_ = 0;
  char checksum_first_ = 0;
  // An error found inside the packet, reported once its checksum is read
  // (a checksum mismatch takes precedence: the bytes were garbled).
  std::optional<FramingError> pending_error_;
  // Set while Discard is skipping the checksum digits of a dropped packet.
  int discard_digits_left_ = 0;
  std::size_t garbage_bytes_ = 0;
  std::deque<ReceiveEvent> events_;
};

// The modulo-256 sum of `raw`.
std::uint8_t checksum(std::string_view raw);

// Escapes the four bytes the framing reserves ('$', '#', '}', '*') as '}'
// followed by the byte xor 0x20. Binary reply data (qXfer, vFile:pread, x)
// travels this way.
std::string encode_binary(std::string_view data);
// The inverse of encode_binary; nullopt for a trailing lone '}'.
std::optional<std::string> decode_binary(std::string_view escaped);

// "$" + encode_binary(payload) + "#" + two checksum digits. Payloads are
// given unescaped; textual replies never contain the reserved bytes, so
// escaping everything is right for both kinds.
std::string encode_packet(std::string_view payload);
// The same framing with '%', for asynchronous notifications.
std::string encode_notification(std::string_view payload);

}  // namespace backstep::rsp
