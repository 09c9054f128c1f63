// Unit tests of RSP framing: golden byte strings in, events out, whatever way
// the bytes are cut into reads; and encode_packet's exact output.
#define BOOST_TEST_MODULE rsp_framing
#include <boost/test/unit_test.hpp>

#include <random>
#include <string>
#include <vector>

#include "gdbserver/rsp/framing.h"
#include "gdbserver/rsp/hex.h"

using namespace backstep::rsp;
using namespace std::string_literals;

namespace {

// A compact spelling of an event, so that expected sequences read as text.
std::string show(const ReceiveEvent& event) {
  struct Shower {
    std::string operator()(const Packet& p) const { return "packet:" + p.payload; }
    std::string operator()(const Interrupt&) const { return "interrupt"; }
    std::string operator()(const Ack&) const { return "ack"; }
    std::string operator()(const Nack&) const { return "nack"; }
    std::string operator()(const FramingError& e) const {
      if (auto* m = std::get_if<ChecksumMismatch>(&e)) {
        return "checksum:" + hex_le(m->expected, 1) + "/" + hex_le(m->calculated, 1);
      }
      if (auto* d = std::get_if<BadChecksumDigits>(&e)) return "digits:"s + d->first + d->second;
      if (auto* t = std::get_if<PacketTooLong>(&e)) return "toolong:" + std::to_string(t->limit);
      if (std::holds_alternative<BadRunLength>(e)) return "rle";
      if (std::holds_alternative<BadEscape>(e)) return "escape";
      return "restart";
    }
  };
  return std::visit(Shower{}, event);
}

std::vector<std::string> drain(PacketReceiver& receiver) {
  std::vector<std::string> out;
  while (auto event = receiver.next_event()) out.push_back(show(*event));
  return out;
}

std::vector<std::string> receive(std::string_view bytes, std::size_t limit = kDefaultPacketLimit) {
  PacketReceiver receiver(limit);
  receiver.feed(bytes);
  return drain(receiver);
}

// Feeds `bytes` in two reads cut at every position, then one byte at a time,
// and checks that every way gives `expected`.
void check_every_split(std::string_view bytes, const std::vector<std::string>& expected,
                       std::size_t limit = kDefaultPacketLimit) {
  for (std::size_t cut = 0; cut <= bytes.size(); ++cut) {
    PacketReceiver receiver(limit);
    receiver.feed(bytes.substr(0, cut));
    receiver.feed(bytes.substr(cut));
    BOOST_TEST_CONTEXT("cut at " << cut) {
      BOOST_TEST(drain(receiver) == expected, boost::test_tools::per_element());
    }
  }
  PacketReceiver receiver(limit);
  for (char c : bytes) receiver.feed(&c, 1);
  BOOST_TEST(drain(receiver) == expected, boost::test_tools::per_element());
}

}  // namespace

BOOST_AUTO_TEST_CASE(single_packet) {
  BOOST_TEST(receive("$qC#b4") == std::vector<std::string>{"packet:qC"},
             boost::test_tools::per_element());
  BOOST_TEST(receive("$#00") == std::vector<std::string>{"packet:"},
             boost::test_tools::per_element());
  // Checksum digits in either case.
  BOOST_TEST(receive("$qC#B4") == std::vector<std::string>{"packet:qC"},
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(handshake_stream_split_everywhere) {
  // What gdb sends first, with acks, an interrupt and a packet split anywhere.
  std::string stream = "+$qSupported:multiprocess+;swbreak+#1b+$vCont;c:p1.-1#0f\x03-$m0,4#fd";
  check_every_split(stream, {"ack", "packet:qSupported:multiprocess+;swbreak+", "ack",
                             "packet:vCont;c:p1.-1", "interrupt", "nack", "packet:m0,4"});
}

BOOST_AUTO_TEST_CASE(escapes_are_undone) {
  // "}]" is '}' (0x7d = 0x5d ^ 0x20); "}\x03" is '#', "}\x04" is '$', "}\n" is '*'.
  check_every_split("$X0,1:}]#f9", {"packet:X0,1:}"});
  check_every_split("$a}]b}\003c}\004d}\ne#51", {"packet:a}b#c$d*e"});
}

BOOST_AUTO_TEST_CASE(run_length_examples_from_the_manual) {
  // "0* " is four zeros: the '0' plus ' ' - 29 = 3 more.
  check_every_split("$0* #7a", {"packet:0000"});
  check_every_split("$0*!#7b", {"packet:00000"});
  check_every_split("$0*\"#7c", {"packet:000000"});
}

BOOST_AUTO_TEST_CASE(run_length_after_an_escape_repeats_the_decoded_byte) {
  std::string raw = "}]* ";  // '}' then 3 more
  check_every_split("$" + raw + "#" + hex_le(checksum(raw), 1), {"packet:}}}}"});
}

BOOST_AUTO_TEST_CASE(interrupt_byte_inside_a_packet_is_data) {
  check_every_split("\x03$X10,1:\x03#53\x03", {"interrupt", "packet:X10,1:\x03", "interrupt"});
}

BOOST_AUTO_TEST_CASE(checksum_mismatch_then_resync) {
  check_every_split("$qC#00$qC#b4", {"checksum:00/b4", "packet:qC"});
  PacketReceiver receiver;
  receiver.feed("$qC#00");
  auto event = receiver.next_event();
  BOOST_REQUIRE(event);
  BOOST_CHECK((*event == ReceiveEvent{FramingError{ChecksumMismatch{0x00, 0xb4}}}));
  BOOST_CHECK_EQUAL(describe(std::get<FramingError>(*event)),
                    "checksum mismatch: packet says 0x00, bytes sum to 0xb4");
  BOOST_CHECK(receiver.state() == PacketReceiver::State::Idle);
}

BOOST_AUTO_TEST_CASE(bad_checksum_digits) {
  check_every_split("$qC#zz$qC#b4", {"digits:zz", "packet:qC"});
  check_every_split("$qC#b", {});  // still waiting for the second digit
}

BOOST_AUTO_TEST_CASE(no_ack_mode_consumes_but_does_not_check) {
  PacketReceiver receiver;
  receiver.set_no_ack(true);
  receiver.feed("$qC#00$qC#zz$qC#b4");
  BOOST_TEST(drain(receiver) == (std::vector<std::string>{"packet:qC", "packet:qC", "packet:qC"}),
             boost::test_tools::per_element());
  // Acks may still arrive (gdb acks the OK to QStartNoAckMode).
  receiver.feed("+");
  BOOST_TEST(drain(receiver) == std::vector<std::string>{"ack"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(oversized_packet_is_reported_and_skipped) {
  // Limit 8: ten payload bytes overflow. What follows the dropped packet's
  // checksum (an interrupt, another packet) is received normally.
  check_every_split("$0123456789#00\x03$qC#b4", {"toolong:8", "interrupt", "packet:qC"}, 8);
  // Run-length expansion counts too.
  check_every_split("$0*~#00$qC#b4", {"toolong:8", "packet:qC"}, 8);
  // A new '$' ends the skipping even without the '#'.
  check_every_split("$0123456789$qC#b4", {"toolong:8", "packet:qC"}, 8);
  // Exactly at the limit is fine.
  check_every_split("$01234567#" + hex_le(checksum("01234567"), 1), {"packet:01234567"}, 8);
}

BOOST_AUTO_TEST_CASE(garbage_between_packets_is_counted_and_skipped) {
  PacketReceiver receiver;
  receiver.feed("abc$qC#b4\r\nx");
  BOOST_TEST(drain(receiver) == std::vector<std::string>{"packet:qC"},
             boost::test_tools::per_element());
  BOOST_CHECK_EQUAL(receiver.garbage_bytes(), 6u);
}

BOOST_AUTO_TEST_CASE(bad_run_length) {
  check_every_split("$*!#4b$qC#b4", {"rle", "packet:qC"});      // nothing to repeat
  check_every_split("$0*\x01#5b$qC#b4", {"rle", "packet:qC"});  // count below ' '
  check_every_split("$a*#8b$qC#b4", {"rle", "packet:qC"});      // '*' right before '#'
}

BOOST_AUTO_TEST_CASE(escape_before_end) {
  check_every_split("$a}#de$qC#b4", {"escape", "packet:qC"});
}

BOOST_AUTO_TEST_CASE(dollar_inside_a_packet_restarts) {
  check_every_split("$qC$qC#b4", {"restart", "packet:qC"});
  check_every_split("$qC#b$qC#b4", {"restart", "packet:qC"});
}

BOOST_AUTO_TEST_CASE(encode_packet_golden) {
  BOOST_CHECK_EQUAL(encode_packet("OK"), "$OK#9a");
  BOOST_CHECK_EQUAL(encode_packet(""), "$#00");
  const std::string escaped = "l<a}\004b}\003c}]d}\ne>";
  BOOST_CHECK_EQUAL(encode_packet("l<a$b#c}d*e>"),
                    "$" + escaped + "#" + hex_le(checksum(escaped), 1));
  BOOST_CHECK_EQUAL(encode_notification("Stop:T05"), "%Stop:T05#99");
  BOOST_CHECK_EQUAL(encode_binary("$#}*x"), "}\x04}\x03}]}\nx");
  BOOST_CHECK(decode_binary("}\x04}\x03}]}\nx") == std::optional<std::string>("$#}*x"));
  BOOST_CHECK(!decode_binary("abc}"));
}

BOOST_AUTO_TEST_CASE(every_byte_value_round_trips) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  std::mt19937 rng(12345);
  std::vector<std::string> payloads = {all};
  for (int n = 0; n < 50; ++n) {
    std::string p(rng() % 300, '\0');
    for (char& c : p) c = static_cast<char>(rng() % 256);
    payloads.push_back(p);
  }
  for (const auto& payload : payloads) {
    PacketReceiver receiver;
    receiver.feed(encode_packet(payload));
    auto event = receiver.next_event();
    BOOST_REQUIRE(event);
    BOOST_REQUIRE(std::holds_alternative<Packet>(*event));
    BOOST_CHECK(std::get<Packet>(*event).payload == payload);
    BOOST_CHECK(!receiver.has_event());
  }
}

BOOST_AUTO_TEST_CASE(random_bytes_never_break_the_receiver) {
  // Noise must only produce events and garbage counts, and the receiver must
  // still read a clean packet afterwards.
  std::mt19937 rng(777);
  for (int round = 0; round < 200; ++round) {
    PacketReceiver receiver(64);
    std::string noise(rng() % 200, '\0');
    for (char& c : noise) c = "0a $#}*+-\x03"[rng() % 11];
    receiver.feed(noise);
    receiver.feed("#00#00$qC#b4");  // close whatever packet the noise left open
    std::vector<std::string> events = drain(receiver);
    BOOST_REQUIRE(!events.empty());
    BOOST_CHECK_EQUAL(events.back(), "packet:qC");
  }
}
