// libFuzzer target for the RSP codec (gdbserver/rsp): bytes from the wire go
// through the framing receiver, and every packet it completes through the
// request parser, as in a session with a misbehaving client.
//
// Input: one flags byte, then the bytes a client would send.
//   bit 0     no-ack mode (checksums consumed, not checked), so that mutated
//             packets reach the parser without a matching checksum
//   bit 1     a 64-byte packet limit, to reach PacketTooLong and Discard
//   bits 2..7 a read size (1..64): the bytes are fed in reads of that size
//
// Beyond "no crash, no leak, no UB" the target checks what the layer
// promises, and aborts (a finding) when a promise is broken:
// - the events do not depend on how the bytes were cut into reads;
// - every packet payload that fits the limit survives encode_packet() and a
//   fresh receiver unchanged, and decode_binary inverts encode_binary;
// - a ParseError says what is wrong (non-empty), and a thread id that parsed
//   prints back to the same text form;
// - the replies built from what a request asks for (a qXfer window, binary
//   data sent back as x / vFile:pread replies) frame and unframe unchanged.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "gdbserver/rsp/framing.h"
#include "gdbserver/rsp/reply.h"
#include "gdbserver/rsp/request.h"
#include "gdbserver/rsp/thread_id.h"

namespace rsp = backstep::rsp;

namespace {

constexpr std::size_t kSmallLimit = 64;

[[noreturn]] void broken(const char* promise) {
  std::fprintf(stderr, "rsp_fuzz: broken promise: %s\n", promise);
  std::abort();
}

std::vector<rsp::ReceiveEvent> receive(std::string_view wire, bool no_ack, std::size_t limit,
                                       std::size_t read_size) {
  rsp::PacketReceiver receiver(limit);
  receiver.set_no_ack(no_ack);
  for (std::size_t at = 0; at < wire.size(); at += read_size) receiver.feed(wire.substr(at, read_size));
  std::vector<rsp::ReceiveEvent> events;
  while (auto event = receiver.next_event()) events.push_back(std::move(*event));
  if (receiver.has_event()) broken("next_event() drains the queue");
  return events;
}

void check_round_trip(const std::string& payload, std::size_t limit);

// A qXfer object the size of a small target description.
const std::string& xfer_object() {
  static const std::string object = [] {
    std::string text;
    for (int i = 0; text.size() < 300; ++i) text += "<reg name=\"r" + std::to_string(i) + "\"/>$#}*";
    return text;
  }();
  return object;
}

void check_xfer_reply(const rsp::XferRead& r) {
  const std::string& object = xfer_object();
  std::string reply = rsp::xfer_chunk(object, r.offset, r.length);
  if (r.offset >= object.size()) {
    if (reply != "l") broken("a qXfer read past the end is \"l\"");
  } else {
    std::string expected = object.substr(r.offset, r.length);
    bool last = r.offset + expected.size() == object.size();
    if (reply != (last ? "l" : "m") + expected) broken("xfer_chunk() is the window asked for");
  }
  check_round_trip(reply, rsp::kDefaultPacketLimit);
}

void check_binary_replies(const rsp::Bytes& data) {
  std::string reply = rsp::memory_binary(data, rsp::BinaryMemoryStyle::GdbPrefixed);
  if (reply.size() <= rsp::kDefaultPacketLimit) check_round_trip(reply, rsp::kDefaultPacketLimit);
  std::string text(data.begin(), data.end());
  reply = rsp::file_data(text);
  if (reply.size() <= rsp::kDefaultPacketLimit) check_round_trip(reply, rsp::kDefaultPacketLimit);
}

void check_thread_id(const rsp::ThreadId& id) {
  auto again = rsp::parse_thread_id(rsp::to_string(id));
  if (!again || !(*again == id)) broken("a parsed thread id prints back to itself");
}

// Every ThreadId a request carries, checked for the round trip.
void check_request(const rsp::Request& request) {
  std::visit(
      [](const auto& r) {
        using T = std::decay_t<decltype(r)>;
        if constexpr (requires { r.thread; }) {
          if constexpr (std::is_same_v<decltype(r.thread), rsp::ThreadId>) {
            check_thread_id(r.thread);
          } else {
            if (r.thread) check_thread_id(*r.thread);
          }
        }
        if constexpr (std::is_same_v<T, rsp::XferRead>) check_xfer_reply(r);
        if constexpr (std::is_same_v<T, rsp::WriteMemoryBinary> || std::is_same_v<T, rsp::XferWrite> ||
                      std::is_same_v<T, rsp::FilePwrite>)
          check_binary_replies(r.data);
        if constexpr (std::is_same_v<T, rsp::VCont>) {
          if (r.actions.empty()) broken("vCont has at least one action");
          for (const auto& action : r.actions)
            if (action.thread) check_thread_id(*action.thread);
        }
      },
      request);
}

void parse(std::string_view payload) {
  rsp::ParseResult result = rsp::parse_request(payload);
  if (auto* error = std::get_if<rsp::ParseError>(&result)) {
    if (error->what.empty()) broken("a ParseError says what is wrong");
    return;
  }
  check_request(std::get<rsp::Request>(result));
}

void check_round_trip(const std::string& payload, std::size_t limit) {
  if (rsp::decode_binary(rsp::encode_binary(payload)) != payload) broken("decode_binary(encode_binary(x)) == x");
  if (payload.size() > limit) broken("a packet respects the receiver's limit");
  // Framed with checksum, in ack mode: exactly this packet comes out.
  auto events = receive(rsp::encode_packet(payload), /*no_ack=*/false, limit, 4096);
  if (events.size() != 1 || !std::holds_alternative<rsp::Packet>(events[0]) ||
      std::get<rsp::Packet>(events[0]).payload != payload)
    broken("encode_packet() round-trips through the receiver");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::uint8_t flags = data[0];
  const bool no_ack = flags & 1;
  const std::size_t limit = (flags & 2) ? kSmallLimit : rsp::kDefaultPacketLimit;
  const std::size_t read_size = (flags >> 2) + 1;
  std::string_view wire(reinterpret_cast<const char*>(data + 1), size - 1);

  std::vector<rsp::ReceiveEvent> events = receive(wire, no_ack, limit, read_size);
  if (events != receive(wire, no_ack, limit, wire.size() + 1)) broken("events do not depend on the reads");
  for (const rsp::ReceiveEvent& event : events) {
    if (auto* packet = std::get_if<rsp::Packet>(&event)) {
      check_round_trip(packet->payload, limit);
      parse(packet->payload);
    } else if (auto* error = std::get_if<rsp::FramingError>(&event)) {
      if (rsp::describe(*error).empty()) broken("describe() says something");
    }
  }
  return 0;
}
