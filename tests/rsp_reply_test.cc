// Unit tests of RSP reply encoding and the hex helpers: exact strings, as the
// client will see them.
#define BOOST_TEST_MODULE rsp_reply
#include <boost/test/unit_test.hpp>
#include <string>
#include <vector>

#include "gdbserver/rsp/framing.h"
#include "gdbserver/rsp/hex.h"
#include "gdbserver/rsp/reply.h"

using namespace backstep::rsp;
using namespace std::string_literals;

namespace {

const ThreadId kThread = ThreadId::in_process(0x1a2, 0x1a3);

StopReply stop(StopReason reason) {
  StopReply s;
  s.signal = 5;
  s.thread = kThread;
  s.reason = reason;
  return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hex_helpers) {
  BOOST_CHECK_EQUAL(hex_encode("GDB"), "474442");
  BOOST_CHECK_EQUAL(hex_encode(std::vector<std::uint8_t>{0x00, 0xff, 0x7d}), "00ff7d");
  BOOST_CHECK((hex_decode("4a4B00") == Bytes{0x4a, 0x4b, 0x00}));
  BOOST_CHECK(hex_decode("") == Bytes{});
  BOOST_CHECK(!hex_decode("abc"));
  BOOST_CHECK(!hex_decode("zz"));
  BOOST_CHECK(hex_decode_text("2f746d70") == std::optional<std::string>("/tmp"));
  BOOST_CHECK(parse_hex_u64("ffffffffffffffff") == UINT64_MAX);
  BOOST_CHECK(parse_hex_u64("00000000000000000001") == 1u);  // leading zeros do not overflow
  BOOST_CHECK(!parse_hex_u64("10000000000000000"));
  BOOST_CHECK(!parse_hex_u64(""));
  BOOST_CHECK(!parse_hex_u64("0x10"));
  BOOST_CHECK(!parse_hex_u64("-1"));
  BOOST_CHECK_EQUAL(hex_number(0), "0");
  BOOST_CHECK_EQUAL(hex_number(0x1c0), "1c0");
  BOOST_CHECK_EQUAL(hex_signed(-1), "-1");
  BOOST_CHECK_EQUAL(hex_signed(255), "ff");
  BOOST_CHECK_EQUAL(hex_signed(INT64_MIN), "-8000000000000000");
  BOOST_CHECK_EQUAL(hex_le(0x401000, 8), "0010400000000000");
}

BOOST_AUTO_TEST_CASE(generic_replies) {
  BOOST_CHECK_EQUAL(ok(), "OK");
  BOOST_CHECK_EQUAL(empty(), "");
  BOOST_CHECK_EQUAL(error(ErrorCode::Failed), "E01");
  BOOST_CHECK_EQUAL(error(ErrorCode::NoSuchThread), "E03");
  BOOST_CHECK_EQUAL(error(ErrorCode::NotReadable), "E0e");
  BOOST_CHECK_EQUAL(error(ErrorCode::InvalidArgument), "E16");
  BOOST_CHECK_EQUAL(error(ErrorCode::InvalidArgument, "bad"), "E16;626164");
}

BOOST_AUTO_TEST_CASE(stop_replies_with_each_reason) {
  using Access = Watchpoint::Access;
  BOOST_CHECK_EQUAL(stop_reply(stop(std::monostate{})), "T05thread:p1a2.1a3;");
  BOOST_CHECK_EQUAL(stop_reply(stop(SoftwareBreak{})), "T05thread:p1a2.1a3;swbreak:;");
  BOOST_CHECK_EQUAL(stop_reply(stop(HardwareBreak{})), "T05thread:p1a2.1a3;hwbreak:;");
  BOOST_CHECK_EQUAL(stop_reply(stop(Watchpoint{Access::Write, 0x7ffe1234})),
                    "T05thread:p1a2.1a3;watch:7ffe1234;");
  BOOST_CHECK_EQUAL(stop_reply(stop(Watchpoint{Access::Read, 0x10})),
                    "T05thread:p1a2.1a3;rwatch:10;");
  BOOST_CHECK_EQUAL(stop_reply(stop(Watchpoint{Access::ReadWrite, 0x10})),
                    "T05thread:p1a2.1a3;awatch:10;");
  BOOST_CHECK_EQUAL(stop_reply(stop(HistoryBoundary{HistoryBoundary::Edge::Begin})),
                    "T05thread:p1a2.1a3;replaylog:begin;");
  BOOST_CHECK_EQUAL(stop_reply(stop(HistoryBoundary{HistoryBoundary::Edge::End})),
                    "T05thread:p1a2.1a3;replaylog:end;");
  BOOST_CHECK_EQUAL(stop_reply(stop(SyscallEntry{1})), "T05thread:p1a2.1a3;syscall_entry:1;");
  BOOST_CHECK_EQUAL(stop_reply(stop(SyscallReturn{0xca})), "T05thread:p1a2.1a3;syscall_return:ca;");
  BOOST_CHECK_EQUAL(stop_reply(stop(Fork{ThreadId::in_process(0x1b0, 0x1b0), false})),
                    "T05thread:p1a2.1a3;fork:p1b0.1b0;");
  BOOST_CHECK_EQUAL(stop_reply(stop(Fork{ThreadId::in_process(0x1b0, 0x1b0), true})),
                    "T05thread:p1a2.1a3;vfork:p1b0.1b0;");
  BOOST_CHECK_EQUAL(stop_reply(stop(VforkDone{})), "T05thread:p1a2.1a3;vforkdone:;");
  // An exec: gdb's key with the path, lldb-server's reason for lldb.
  BOOST_CHECK_EQUAL(stop_reply(stop(Exec{"/bin/ls", false})), "T05thread:p1a2.1a3;exec:2f62696e2f6c73;");
  BOOST_CHECK_EQUAL(stop_reply(stop(Exec{"/bin/ls", true})), "T05thread:p1a2.1a3;reason:exec;");
  StopReply killed;
  killed.signal = 9;
  BOOST_CHECK_EQUAL(stop_reply(killed), "T09");
}

BOOST_AUTO_TEST_CASE(stop_reply_with_expedited_registers_and_lldb_thread_lists) {
  StopReply s = stop(SoftwareBreak{});
  s.registers = {{6, register_value(0x7ffe0010, 8)},
                 {7, register_value(0x7ffe0000, 8)},
                 {0x10, register_value(0x401000, 8)}};
  s.core = 2;
  BOOST_CHECK_EQUAL(stop_reply(s),
                    "T05thread:p1a2.1a3;swbreak:;06:1000fe7f00000000;07:0000fe7f00000000;"
                    "10:0010400000000000;core:2;");

  StopReply lldb;
  lldb.signal = 5;
  lldb.thread = ThreadId::specific(0x1a3);
  lldb.threads = {ThreadId::specific(0x1a3), ThreadId::specific(0x1a4)};
  lldb.thread_pcs = {0x401000, 0x402000};
  BOOST_CHECK_EQUAL(stop_reply(lldb), "T05thread:1a3;threads:1a3,1a4;thread-pcs:401000,402000;");
}

BOOST_AUTO_TEST_CASE(exit_and_termination) {
  BOOST_CHECK_EQUAL(exited(0), "W00");
  BOOST_CHECK_EQUAL(exited(1, 0x1a2), "W01;process:1a2");
  BOOST_CHECK_EQUAL(terminated(9), "X09");
  BOOST_CHECK_EQUAL(terminated(0xb, 0x1a2), "X0b;process:1a2");
}

BOOST_AUTO_TEST_CASE(threads) {
  BOOST_CHECK_EQUAL(thread_list({}), "l");
  std::vector<ThreadId> ids = {ThreadId::in_process(1, 2), ThreadId::in_process(1, 3)};
  BOOST_CHECK_EQUAL(thread_list(ids), "mp1.2,p1.3");
  BOOST_CHECK_EQUAL(current_thread(ThreadId::in_process(0x1a2, 0x1a2)), "QCp1a2.1a2");
}

BOOST_AUTO_TEST_CASE(registers_and_memory) {
  BOOST_CHECK_EQUAL(register_value(0x401000, 8), "0010400000000000");
  BOOST_CHECK_EQUAL(register_value(0x202, 4), "02020000");
  BOOST_CHECK_EQUAL(register_value(1, 10), "01000000000000000000");  // st0: 80 bits
  BOOST_CHECK_EQUAL(register_bytes(std::vector<std::uint8_t>{0xde, 0xad}), "dead");
  BOOST_CHECK_EQUAL(unavailable_register(4), "xxxxxxxx");
  std::vector<std::uint8_t> mem = {0x7f, 'E', 'L', 'F', '$', '#'};
  BOOST_CHECK_EQUAL(memory_hex(mem), "7f454c462423");
  BOOST_CHECK_EQUAL(memory_binary(mem, BinaryMemoryStyle::GdbPrefixed), "b\177ELF$#");
  BOOST_CHECK_EQUAL(memory_binary(mem, BinaryMemoryStyle::Lldb), "\177ELF$#");
  // On the wire the reserved bytes are escaped.
  std::string framed = encode_packet(memory_binary(mem, BinaryMemoryStyle::Lldb));
  BOOST_CHECK_EQUAL(framed.substr(0, framed.size() - 2), "$\177ELF}\004}\003#");
}

BOOST_AUTO_TEST_CASE(qxfer_chunks_honour_offset_and_length) {
  const std::string object = "0123456789";
  BOOST_CHECK_EQUAL(xfer_chunk(object, 0, 4), "m0123");
  BOOST_CHECK_EQUAL(xfer_chunk(object, 4, 4), "m4567");
  BOOST_CHECK_EQUAL(xfer_chunk(object, 8, 4), "l89");
  BOOST_CHECK_EQUAL(xfer_chunk(object, 6, 4), "l6789");
  BOOST_CHECK_EQUAL(xfer_chunk(object, 10, 4), "l");
  BOOST_CHECK_EQUAL(xfer_chunk(object, 0x1000, 0x1000), "l");
  BOOST_CHECK_EQUAL(xfer_chunk(object, 0, 0x1000), "l0123456789");
  BOOST_CHECK_EQUAL(xfer_chunk(object, 2, UINT64_MAX), "l23456789");
  BOOST_CHECK_EQUAL(xfer_chunk("", 0, 0x1000), "l");
  // Binary content is escaped by the framing, not here.
  BOOST_CHECK_EQUAL(encode_packet(xfer_chunk("<a>}</a>", 0, 0x1000)), "$l<a>}]</a>#2b");
}

BOOST_AUTO_TEST_CASE(console_output_and_monitor) {
  BOOST_CHECK_EQUAL(console_output("hello\n"), "O68656c6c6f0a");
}

BOOST_AUTO_TEST_CASE(host_io_replies) {
  BOOST_CHECK_EQUAL(file_result(5), "F5");
  BOOST_CHECK_EQUAL(file_result(-1), "F-1");
  BOOST_CHECK_EQUAL(file_error(2), "F-1,2");
  BOOST_CHECK_EQUAL(file_data("ab"), "F2;ab");
  BOOST_CHECK_EQUAL(file_data(std::string(0x24, 'x')), "F24;" + std::string(0x24, 'x'));
}

BOOST_AUTO_TEST_CASE(key_value_replies) {
  using State = SupportedFeature::State;
  std::vector<SupportedFeature> features = {{"PacketSize", State::Value, "20000"},
                                            {"QStartNoAckMode", State::Supported, ""},
                                            {"qXfer:features:read", State::Supported, ""},
                                            {"ReverseContinue", State::Supported, ""},
                                            {"qXfer:libraries-svr4:read", State::Unsupported, ""}};
  BOOST_CHECK_EQUAL(supported_features(features),
                    "PacketSize=20000;QStartNoAckMode+;qXfer:features:read+;ReverseContinue+;"
                    "qXfer:libraries-svr4:read-");
  std::vector<std::pair<std::string_view, std::string>> host = {{"ptrsize", "8"},
                                                                {"endian", "little"}};
  BOOST_CHECK_EQUAL(key_values(host), "ptrsize:8;endian:little;");
  BOOST_CHECK_EQUAL(memory_region({0x400000, 0x1000, "rx", "/bin/ls"}),
                    "start:400000;size:1000;permissions:rx;name:2f62696e2f6c73;");
  BOOST_CHECK_EQUAL(memory_region({0, 0x400000, "", std::nullopt}),
                    "start:0;size:400000;");
}

BOOST_AUTO_TEST_CASE(framed_golden_replies) {
  BOOST_CHECK_EQUAL(encode_packet(stop_reply(stop(SoftwareBreak{}))),
                    "$T05thread:p1a2.1a3;swbreak:;#31");
  BOOST_CHECK_EQUAL(encode_packet(exited(0)), "$W00#b7");
  BOOST_CHECK_EQUAL(encode_packet(ok()), "$OK#9a");
}
