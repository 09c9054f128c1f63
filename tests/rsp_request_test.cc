// Unit tests of RSP request parsing: for each family, the packets gdb 13 and
// lldb 19 really send (see shared/notes/rsp-clients.md) with the exact values
// they must parse to; then, table-driven, malformed forms of every known
// packet, each of which must be a ParseError (never Unknown, never a throw).
#define BOOST_TEST_MODULE rsp_request
#include <boost/test/unit_test.hpp>

#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gdbserver/rsp/request.h"

using namespace backstep::rsp;
using namespace std::string_literals;

namespace {

using Golden = std::vector<std::pair<std::string, Request>>;

void check_golden(const Golden& table) {
  for (const auto& [payload, expected] : table) {
    BOOST_TEST_CONTEXT("payload \"" << payload << "\"") {
      ParseResult result = parse_request(payload);
      if (auto* error = std::get_if<ParseError>(&result)) {
        BOOST_ERROR("parse error: " << error->what);
        continue;
      }
      const Request& got = std::get<Request>(result);
      BOOST_CHECK_MESSAGE(got == expected, "parsed to alternative " << got.index() << ", expected "
                                                                    << expected.index());
    }
  }
}

template <typename T>
T parse_as(const std::string& payload) {
  ParseResult result = parse_request(payload);
  if (auto* error = std::get_if<ParseError>(&result)) {
    BOOST_FAIL(payload << ": parse error: " << error->what);
  }
  const Request& request = std::get<Request>(result);
  BOOST_REQUIRE_MESSAGE(std::holds_alternative<T>(request),
                        payload << ": parsed to alternative " << request.index());
  return std::get<T>(request);
}

std::string parse_error(const std::string& payload) {
  ParseResult result = parse_request(payload);
  auto* error = std::get_if<ParseError>(&result);
  BOOST_REQUIRE_MESSAGE(error, payload << ": no parse error");
  return error->what;
}

Bytes bytes(std::string_view text) { return Bytes(text.begin(), text.end()); }

}  // namespace

BOOST_AUTO_TEST_CASE(qsupported_from_gdb_and_lldb) {
  using State = SupportedFeature::State;
  auto gdb = parse_as<QuerySupported>(
      "qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;vfork-events+;"
      "exec-events+;vContSupported+;QThreadEvents+;no-resumed+;memory-tagging+;xmlRegisters=i386");
  BOOST_REQUIRE_EQUAL(gdb.features.size(), 12u);
  BOOST_CHECK((gdb.features[0] == SupportedFeature{"multiprocess", State::Supported, ""}));
  BOOST_CHECK((gdb.features[11] == SupportedFeature{"xmlRegisters", State::Value, "i386"}));
  BOOST_CHECK(gdb.supports("swbreak"));
  BOOST_CHECK(!gdb.supports("ReverseContinue"));
  BOOST_CHECK(gdb.value_of("xmlRegisters") == std::optional<std::string_view>("i386"));

  auto lldb = parse_as<QuerySupported>(
      "qSupported:xmlRegisters=i386,arm,mips,arc;multiprocess+;fork-events+;vfork-events+");
  BOOST_REQUIRE_EQUAL(lldb.features.size(), 4u);
  BOOST_CHECK(lldb.value_of("xmlRegisters") ==
              std::optional<std::string_view>("i386,arm,mips,arc"));
  BOOST_CHECK(!lldb.supports("swbreak"));

  auto other = parse_as<QuerySupported>("qSupported:a-;b?");
  BOOST_CHECK((other.features[0] == SupportedFeature{"a", State::Unsupported, ""}));
  BOOST_CHECK((other.features[1] == SupportedFeature{"b", State::Query, ""}));
  BOOST_CHECK(parse_as<QuerySupported>("qSupported").features.empty());
}

BOOST_AUTO_TEST_CASE(connection_and_queries) {
  check_golden({
      {"vMustReplyEmpty", MustReplyEmpty{}},
      {"QStartNoAckMode", StartNoAckMode{}},
      {"!", EnableExtendedMode{}},
      {"?", QueryStopReason{}},
      {"QThreadSuffixSupported", ThreadSuffixSupported{}},
      {"QListThreadsInStopReply", ListThreadsInStopReply{}},
      {"QEnableErrorStrings", EnableErrorStrings{}},
      {"QNonStop:0", SetNonStop{.enabled = false}},
      {"QNonStop:1", SetNonStop{.enabled = true}},
      {"qAttached", QueryAttached{}},
      {"qAttached:1a2b", QueryAttached{.pid = 0x1a2b}},
      {"qOffsets", QueryOffsets{}},
      {"qTStatus", QueryTraceStatus{}},
      {"qHostInfo", QueryHostInfo{}},
      {"qProcessInfo", QueryProcessInfo{}},
      {"qMemoryRegionInfo:7ffff7fcc060", QueryMemoryRegion{.addr = 0x7ffff7fcc060}},
      {"qWatchpointSupportInfo", QueryWatchpointSupport{}},
      {"qWatchpointSupportInfo:", QueryWatchpointSupport{}},
      {"qShlibInfoAddr", QueryShlibInfoAddr{}},
      {"qRegisterInfo0", QueryRegisterInfo{.regnum = 0}},
      {"qRegisterInfo3a", QueryRegisterInfo{.regnum = 0x3a}},
      {"qSymbol::", QuerySymbol{}},
      {"qSymbol::6d61696e", QuerySymbol{.value = std::nullopt, .name = "main"}},
      {"qSymbol:401000:6d61696e", QuerySymbol{.value = 0x401000, .name = "main"}},
  });
}

BOOST_AUTO_TEST_CASE(monitor_command_is_hex_decoded) {
  BOOST_CHECK_EQUAL(parse_as<MonitorCommand>("qRcmd,7768656e").command, "when");
  BOOST_CHECK_EQUAL(parse_as<MonitorCommand>("qRcmd,636865636b706f696e74").command, "checkpoint");
  BOOST_CHECK_EQUAL(parse_as<MonitorCommand>("qRcmd,").command, "");
}

BOOST_AUTO_TEST_CASE(thread_packets_in_every_form) {
  using Purpose = SetThread::Purpose;
  check_golden({
      {"Hgp0.0", SetThread{Purpose::General, ThreadId::in_process(0, 0)}},
      {"Hc-1", SetThread{Purpose::Resume, ThreadId::all()}},
      {"Hc0", SetThread{Purpose::Resume, ThreadId::any()}},
      {"Hg1a3", SetThread{Purpose::General, ThreadId::specific(0x1a3)}},
      {"Hcp1a2.0", SetThread{Purpose::Resume, ThreadId::in_process(0x1a2, 0)}},
      {"Hgp1a2.1a3", SetThread{Purpose::General, ThreadId::in_process(0x1a2, 0x1a3)}},
      {"Hcp1a2.-1", SetThread{Purpose::Resume, ThreadId::in_process(0x1a2, -1)}},
      {"Hgp1a2", SetThread{Purpose::General, ThreadId::in_process(0x1a2, -1)}},
      {"Hcp-1", SetThread{Purpose::Resume, ThreadId::in_process(-1, -1)}},
      {"Hcp-1.-1", SetThread{Purpose::Resume, ThreadId::in_process(-1, -1)}},
      {"Tp1a2.1a3", ThreadAlive{ThreadId::in_process(0x1a2, 0x1a3)}},
      {"T1a3", ThreadAlive{ThreadId::specific(0x1a3)}},
      {"qThreadExtraInfo,p1a2.1a3", ThreadExtraInfo{ThreadId::in_process(0x1a2, 0x1a3)}},
      {"qGetTLSAddr:p1a2.1a3,10,7ffff7ffe2e0", QueryTlsAddress{ThreadId::in_process(0x1a2, 0x1a3), 0x10, 0x7ffff7ffe2e0}},
      {"qGetTLSAddr:1a3,0,4000", QueryTlsAddress{ThreadId::specific(0x1a3), 0, 0x4000}},
      {"qSearch:memory:1000;2000;ab}c", SearchMemory{0x1000, 0x2000, {'a', 'b', '}', 'c'}}},
      {"qC", QueryCurrentThread{}},
      {"qfThreadInfo", ThreadInfoFirst{}},
      {"qsThreadInfo", ThreadInfoNext{}},
      {"jThreadsInfo", ThreadsInfoJson{}},
  });
  // The fields behind the helpers, spelled out once.
  auto h = parse_as<SetThread>("Hgp1a2.1a3");
  BOOST_CHECK(h.thread.kind == ThreadId::Kind::Specific);
  BOOST_CHECK_EQUAL(*h.thread.pid, 0x1a2);
  BOOST_CHECK_EQUAL(h.thread.tid, 0x1a3);
  auto any = parse_as<SetThread>("Hgp0.0");
  BOOST_CHECK(any.thread.kind == ThreadId::Kind::Any);
  BOOST_CHECK_EQUAL(*any.thread.pid, ThreadId::kAny);
  auto all = parse_as<SetThread>("Hc-1");
  BOOST_CHECK(all.thread.kind == ThreadId::Kind::All);
  BOOST_CHECK(!all.thread.pid);
}

BOOST_AUTO_TEST_CASE(thread_id_text_round_trips) {
  for (std::string text :
       {"p1a2.1a3", "p1a2.-1", "p0.0", "p-1.-1", "-1", "0", "7fffffffffffffff"}) {
    auto id = parse_thread_id(text);
    BOOST_REQUIRE_MESSAGE(id, text);
    BOOST_CHECK_EQUAL(to_string(*id), text);
  }
  BOOST_CHECK_EQUAL(to_string(*parse_thread_id("p1a2")), "p1a2.-1");
  BOOST_CHECK_EQUAL(to_string(*parse_thread_id("0001a3")), "1a3");
}

BOOST_AUTO_TEST_CASE(register_packets_with_and_without_thread_suffix) {
  auto t = ThreadId::specific(0x1b);
  check_golden({
      {"g", ReadRegisters{}},
      {"g;thread:1b;", ReadRegisters{t}},
      {"G0102ff", WriteRegisters{Bytes{1, 2, 0xff}, std::nullopt}},
      {"G0102;thread:p1.2;", WriteRegisters{Bytes{1, 2}, ThreadId::in_process(1, 2)}},
      {"p10", ReadRegister{0x10, std::nullopt}},
      {"p0;thread:1b;", ReadRegister{0, t}},
      {"p3a;thread:1b", ReadRegister{0x3a, t}},
      {"P39=ffffffffffffffff", WriteRegister{0x39, Bytes(8, 0xff), std::nullopt}},
      {"P10=0010400000000000;thread:1b;",
       WriteRegister{0x10, Bytes{0, 0x10, 0x40, 0, 0, 0, 0, 0}, t}},
      {"QSaveRegisterState", SaveRegisterState{}},
      {"QSaveRegisterState;thread:1b;", SaveRegisterState{t}},
      {"QRestoreRegisterState:3;thread:1b;", RestoreRegisterState{3, t}},
  });
}

BOOST_AUTO_TEST_CASE(memory_packets) {
  check_golden({
      {"m7ffff000,40", ReadMemory{.addr = 0x7ffff000, .length = 0x40}},
      {"mffffffffffffffff,1", ReadMemory{.addr = UINT64_MAX, .length = 1}},
      {"x0,0", ReadMemoryBinary{.addr = 0, .length = 0}},
      {"x401000,200", ReadMemoryBinary{.addr = 0x401000, .length = 0x200}},
      {"M1000,3:0a0B0c", WriteMemory{.addr = 0x1000, .data = Bytes{0x0a, 0x0b, 0x0c}}},
      {"M1000,0:", WriteMemory{.addr = 0x1000, .data = {}}},
      {"X7ffe0000,0:", WriteMemoryBinary{.addr = 0x7ffe0000, .data = {}}},
      // Binary data arrives unescaped by the framing: any byte, ':' and ',' included.
      {"X10,5:\xcc$:,\x00"s, WriteMemoryBinary{.addr = 0x10, .data = bytes("\xcc$:,\x00"s)}},
      {"_M1000,rwx", AllocateMemory{.size = 0x1000, .permissions = "rwx"}},
      {"_M20,r", AllocateMemory{.size = 0x20, .permissions = "r"}},
      {"_m7f0000", DeallocateMemory{.addr = 0x7f0000}},
  });
}

BOOST_AUTO_TEST_CASE(breakpoints_and_watchpoints) {
  using Type = BreakpointType;
  check_golden({
      {"Z0,401000,1", InsertBreakpoint{{Type::Software, 0x401000, 1, ""}}},
      {"z0,401000,1", RemoveBreakpoint{{Type::Software, 0x401000, 1, ""}}},
      {"Z1,7ffff7fcc060,1", InsertBreakpoint{{Type::Hardware, 0x7ffff7fcc060, 1, ""}}},
      {"Z2,7ffe1234,8", InsertBreakpoint{{Type::WriteWatch, 0x7ffe1234, 8, ""}}},
      {"z3,7ffe1234,4", RemoveBreakpoint{{Type::ReadWatch, 0x7ffe1234, 4, ""}}},
      {"Z4,7ffe1234,2", InsertBreakpoint{{Type::AccessWatch, 0x7ffe1234, 2, ""}}},
      // Conditions and commands are kept as raw text.
      {"Z0,401000,1;X3,220c05;cmds:0,X3,abcdef",
       InsertBreakpoint{{Type::Software, 0x401000, 1, "X3,220c05;cmds:0,X3,abcdef"}}},
  });
}

BOOST_AUTO_TEST_CASE(vcont_actions_and_ranges) {
  using Kind = VContAction::Kind;
  auto pid_all = ThreadId::in_process(0x1a2, -1);
  check_golden({
      {"vCont?", VContQuery{}},
      {"vCont;c", VCont{{VContAction{.kind = Kind::Continue}}}},
      {"vCont;c:p1a2.-1", VCont{{VContAction{.kind = Kind::Continue, .thread = pid_all}}}},
      {"vCont;s:p1a2.1a3;c:p1a2.-1",
       VCont{{VContAction{.kind = Kind::Step, .thread = ThreadId::in_process(0x1a2, 0x1a3)},
              VContAction{.kind = Kind::Continue, .thread = pid_all}}}},
      {"vCont;s:1a3;c:p1a2.-1",
       VCont{{VContAction{.kind = Kind::Step, .thread = ThreadId::specific(0x1a3)},
              VContAction{.kind = Kind::Continue, .thread = pid_all}}}},
      {"vCont;r401000,401020:1a3;c:p1a2.-1",
       VCont{{VContAction{.kind = Kind::RangeStep,
                          .range_start = 0x401000,
                          .range_end = 0x401020,
                          .thread = ThreadId::specific(0x1a3)},
              VContAction{.kind = Kind::Continue, .thread = pid_all}}}},
      {"vCont;C1e:p1.2;S05;t:3",
       VCont{
           {VContAction{
                .kind = Kind::ContinueSignal, .signal = 0x1e, .thread = ThreadId::in_process(1, 2)},
            VContAction{.kind = Kind::StepSignal, .signal = 5},
            VContAction{.kind = Kind::Stop, .thread = ThreadId::specific(3)}}}},
  });
}

BOOST_AUTO_TEST_CASE(legacy_resume_reverse_kill_detach) {
  check_golden({
      {"c", Continue{}},
      {"c401000", Continue{.addr = 0x401000}},
      {"s", Step{}},
      {"s401000", Step{.addr = 0x401000}},
      {"C05", ContinueWithSignal{.signal = 5}},
      {"C0e;401000", ContinueWithSignal{.signal = 0xe, .addr = 0x401000}},
      {"S1e", StepWithSignal{.signal = 0x1e}},
      {"S1e;10", StepWithSignal{.signal = 0x1e, .addr = 0x10}},
      {"bc", ReverseContinue{}},
      {"bs", ReverseStep{}},
      {"k", Kill{}},
      {"vKill", VKill{}},
      {"vKill;1a2", VKill{.pid = 0x1a2}},
      {"D", Detach{}},
      {"D;1a2", Detach{.pid = 0x1a2}},
  });
}

BOOST_AUTO_TEST_CASE(vrun_arguments_are_hex) {
  check_golden({
      {"vRun;", VRun{.program = "", .args = {}}},
      {"vRun;;63313030", VRun{.program = "", .args = {"c100"}}},
      {"vRun;2f62696e2f6c73;2d6c;", VRun{.program = "/bin/ls", .args = {"-l", ""}}},
      {"vRun;;74313233;", VRun{.program = "", .args = {"t123", ""}}},
  });
}

BOOST_AUTO_TEST_CASE(signals_syscalls_and_run_settings) {
  check_golden({
      {"QPassSignals:", PassSignals{}},
      {"QPassSignals:e;f;1e", PassSignals{{0xe, 0xf, 0x1e}}},
      {"QPassSignals:e;f;", PassSignals{{0xe, 0xf}}},
      {"QProgramSignals:0;1;3;4;6;7;8;9;a;b;c;d;e;f;10",
       ProgramSignals{{0, 1, 3, 4, 6, 7, 8, 9, 0xa, 0xb, 0xc, 0xd, 0xe, 0xf, 0x10}}},
      {"QCatchSyscalls:0", CatchSyscalls{.enabled = false}},
      {"QCatchSyscalls:1", CatchSyscalls{.enabled = true}},
      {"QCatchSyscalls:1;1;ca", CatchSyscalls{.enabled = true, .numbers = {1, 0xca}}},
      {"QDisableRandomization:1", DisableRandomization{.disable = true}},
      {"QStartupWithShell:0", StartupWithShell{.enabled = false}},
      {"QEnvironmentReset", EnvironmentReset{}},
      {"QEnvironmentHexEncoded:464f4f3d626172", EnvironmentHexEncoded{"FOO=bar"}},
      {"QEnvironmentHexEncoded:464f4f3d", EnvironmentHexEncoded{"FOO="}},
      {"QSetWorkingDir:", SetWorkingDir{""}},
      {"QSetWorkingDir:2f746d70", SetWorkingDir{"/tmp"}},
  });
}

BOOST_AUTO_TEST_CASE(qxfer_objects_offsets_and_lengths) {
  using Object = XferObject;
  check_golden({
      {"qXfer:features:read:target.xml:0,fff", XferRead{Object::Features, "target.xml", 0, 0xfff}},
      {"qXfer:features:read:target.xml:1000,1000",
       XferRead{Object::Features, "target.xml", 0x1000, 0x1000}},
      {"qXfer:features:read:64bit-sse.xml:7ff,7ff",
       XferRead{Object::Features, "64bit-sse.xml", 0x7ff, 0x7ff}},
      {"qXfer:auxv:read::0,1000", XferRead{Object::Auxv, "", 0, 0x1000}},
      {"qXfer:exec-file:read:1a2:0,1000", XferRead{Object::ExecFile, "1a2", 0, 0x1000}},
      {"qXfer:siginfo:read::0,80", XferRead{Object::Siginfo, "", 0, 0x80}},
      {"qXfer:threads:read::0,fff", XferRead{Object::Threads, "", 0, 0xfff}},
      {"qXfer:libraries-svr4:read:start=7f0;prev=0:0,fff",
       XferRead{Object::LibrariesSvr4, "start=7f0;prev=0", 0, 0xfff}},
      {"qXfer:siginfo:write::0:\x0b\x00:\x01"s,
       XferWrite{Object::Siginfo, "", 0, bytes("\x0b\x00:\x01"s)}},
      // Objects (or operations) this layer does not know are Unknown, named in full.
      {"qXfer:memory-map:read::0,fff", Unknown{"qXfer:memory-map:read"}},
      {"qXfer:features:write::0:abc", Unknown{"qXfer:features:write"}},
      {"qXfer:osdata:read:processes:0,fff", Unknown{"qXfer:osdata:read"}},
  });
  BOOST_CHECK_EQUAL(to_string(XferObject::LibrariesSvr4), "libraries-svr4");
  BOOST_CHECK_EQUAL(to_string(XferObject::ExecFile), "exec-file");
}

BOOST_AUTO_TEST_CASE(vfile_host_io) {
  check_golden({
      {"vFile:setfs:0", FileSetFs{0}},
      {"vFile:setfs:1a2", FileSetFs{0x1a2}},
      // gdb's probe: "just probing", O_RDONLY, 0700.
      {"vFile:open:6a7573742070726f62696e67,0,1c0", FileOpen{"just probing", 0, 0x1c0}},
      {"vFile:open:2f62696e2f6c73,0,0", FileOpen{"/bin/ls", 0, 0}},
      {"vFile:pread:5,3fff,0", FilePread{5, 0x3fff, 0}},
      {"vFile:pread:5,3fff,1c000", FilePread{5, 0x3fff, 0x1c000}},
      {"vFile:pwrite:5,10,\177ELF,:", FilePwrite{5, 0x10, bytes("\177ELF,:")}},
      {"vFile:close:5", FileClose{5}},
      {"vFile:fstat:5", FileFstat{5}},
      {"vFile:unlink:2f746d702f78", FileUnlink{"/tmp/x"}},
      {"vFile:readlink:2f70726f632f73656c662f657865", FileReadlink{"/proc/self/exe"}},
      {"vFile:stat:2f746d70", Unknown{"vFile:stat"}},
  });
}

BOOST_AUTO_TEST_CASE(unknown_packets_are_named) {
  check_golden({
      {"", Unknown{""}},
      {"qVAttachOrWaitSupported", Unknown{"qVAttachOrWaitSupported"}},
      {"qStructuredDataPlugins", Unknown{"qStructuredDataPlugins"}},
      {"jThreadExtendedInfo:{\"thread\":1}", Unknown{"jThreadExtendedInfo"}},
      {"qCRC:401000,10", Unknown{"qCRC"}},  // "qC" is a word, not a prefix
      {"vAttach;1a2", Unknown{"vAttach"}},
      {"QThreadEvents:1", Unknown{"QThreadEvents"}},
      {"qRRCmd:when:-1", Unknown{"qRRCmd"}},
      {"A10,0,2f", Unknown{"A"}},
      {"i", Unknown{"i"}},
      {"bz", Unknown{"b"}},
      {"bcx", Unknown{"b"}},
      {"vContx", Unknown{"vContx"}},
  });
}

BOOST_AUTO_TEST_CASE(malformed_packets_are_parse_errors) {
  // clang-format off
  const std::vector<std::string> malformed = {
      // Memory.
      "m", "m10", "m10,", "m,4", "m10,4x", "mzz,4", "m10000000000000000,4", "m10,-4", "M10,2",
      "M10,2:010", "M10,2:01", "M10,2:zz01", "M10,2:010203", "M,2:0102", "X10", "X10,2", "X10,2:a",
      "X10,2:abc", "x10", "x10,", "x,1", "_M", "_M1000", "_M1000,", "_M1000,q", "_Mzz,r", "_m",
      "_mzz",
      // Registers.
      "p", "pzz", "p100000000", "p10;thread:", "p10;thread:zz", "p10;foo", "p10x", "P10", "P10=",
      "P10=0", "P10=zz", "P=00", "P10=00;thread:", "G", "G0", "G0g", "G00;x", "g;thread:", "gx",
      "QSaveRegisterState;thread:", "QSaveRegisterState;x", "QRestoreRegisterState",
      "QRestoreRegisterState:", "QRestoreRegisterState:zz", "qRegisterInfo", "qRegisterInfozz",
      "qRegisterInfo100000000",
      // Threads.
      "H", "Hx1", "Hg", "Hgzz", "Hgp", "Hgp1.", "Hgp.1", "Hg-2", "Hgp-1.5", "Hg8000000000000000",
      "Hg1.2", "Hgp1.2.3", "T", "Tzz", "T-2", "qThreadExtraInfo", "qThreadExtraInfo,",
      "qThreadExtraInfo,x", "qGetTLSAddr:1,2", "qGetTLSAddr:1;2;3", "qGetTLSAddr:zz,1,2", "qSearch:memory:1;2",
      "qSearch:memory:1;2;", "qC:1", "qfThreadInfo:", "jThreadsInfo:",
      // Breakpoints.
      "Z", "Z0", "Z0,", "Z0,10", "Z0,10,", "Z5,10,1", "Z0,10,1x", "z0,zz,1", "Zz,1,1", "Z0;10,1",
      // Execution.
      "vCont", "vCont;", "vCont;x", "vCont;c;", "vCont;C", "vCont;Czz", "vCont;C100", "vCont;c:",
      "vCont;c:zz", "vCont;r1", "vCont;r1,", "vCont;rx,1", "vCont;s:p1.2:3", "vCont:c", "vCont;;c",
      "vCont?;", "c1g", "cx", "C", "Czz", "C05;", "C05;zz", "C05x", "s1g", "S", "S05;x", "bc;1",
      "bs:1", "k1", "kx", "vKill;", "vKill;zz", "vKill;1;2", "D;", "D;zz", "Dx", "?x", "!x", "vRun",
      "vRun;zz", "vRun;;6", "vRun;;6g", "vRun:", "vMustReplyEmpty;x", "QStartNoAckMode:1",
      // Queries and settings.
      "qRcmd", "qRcmd,6", "qRcmd,zz", "qRcmd:61", "QPassSignals", "QPassSignals:zz",
      "QPassSignals:1;;2", "QPassSignals:100", "QPassSignals:;", "QProgramSignals:x",
      "QProgramSignals", "QCatchSyscalls", "QCatchSyscalls:", "QCatchSyscalls:2",
      "QCatchSyscalls:0;1", "QCatchSyscalls:1;", "QCatchSyscalls:1;zz", "QCatchSyscalls:1;1;",
      "QNonStop", "QNonStop:", "QNonStop:2", "QNonStop:1x", "qSymbol", "qSymbol:", "qSymbol:zz:",
      "qSymbol::6", "qSymbol:1:zz", "qSymbol:1", "qAttached:", "qAttached:zz", "qAttached;1",
      "qMemoryRegionInfo", "qMemoryRegionInfo:", "qMemoryRegionInfo:zz", "qWatchpointSupportInfo:x",
      "qShlibInfoAddr:1", "qShlibInfoAddr;",
      "qOffsets:1", "qTStatus,", "QDisableRandomization", "QDisableRandomization:5",
      "QStartupWithShell:", "QEnvironmentReset:", "QEnvironmentHexEncoded:",
      "QEnvironmentHexEncoded:464f4f", "QEnvironmentHexEncoded:zz", "QSetWorkingDir",
      "QSetWorkingDir:2", "QSetWorkingDir:zz", "qSupported:", "qSupported:foo",
      "qSupported:swbreak+;", "qSupported:=x", "qSupported:+", "qSupported;a+",
      // Transfers.
      "qXfer", "qXfer:", "qXfer:features", "qXfer:features:read", "qXfer:features:read:target.xml",
      "qXfer:features:read:target.xml:", "qXfer:features:read:target.xml:0",
      "qXfer:features:read:target.xml:0,", "qXfer:features:read:target.xml:zz,10",
      "qXfer:features:read:target.xml:0,fff:x", "qXfer:auxv:read::0,10000000000000000",
      "qXfer:siginfo:write::0", "qXfer:siginfo:write::zz:ab", "qXfer:siginfo:write:", "vFile",
      "vFile:", "vFile:open", "vFile:open:", "vFile:open:zz,0,0", "vFile:open:2f,0",
      "vFile:open:2f,0,", "vFile:open:2,0,0", "vFile:pread:5,10", "vFile:pread:-1,10,0",
      "vFile:pread:5,10,0,1", "vFile:pwrite:5", "vFile:pwrite:5,0", "vFile:close:", "vFile:close:x",
      "vFile:fstat:", "vFile:setfs:", "vFile:setfs:-1", "vFile:unlink:2", "vFile:readlink:zz",
  };
  // clang-format on
  for (const std::string& payload : malformed) {
    BOOST_TEST_CONTEXT("payload \"" << payload << "\"") {
      ParseResult result;
      BOOST_CHECK_NO_THROW(result = parse_request(payload));
      if (auto* request = std::get_if<Request>(&result)) {
        BOOST_ERROR("parsed to alternative "
                    << request->index()
                    << (std::holds_alternative<Unknown>(*request) ? " (Unknown)" : ""));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(parse_errors_name_the_packet_and_the_problem) {
  BOOST_CHECK_EQUAL(parse_error("m10"), "m: expected ',' after the address");
  BOOST_CHECK_EQUAL(parse_error("m10000000000000000,4"), "m: address out of range");
  BOOST_CHECK_EQUAL(parse_error("M10,2:01"), "M: length says 2 bytes, data has 1");
  BOOST_CHECK_EQUAL(parse_error("Hgzz"), "H: bad thread id 'zz'");
  BOOST_CHECK_EQUAL(parse_error("vCont;x"), "vCont: unknown action 'x'");
  BOOST_CHECK_EQUAL(parse_error("vFile:open:zz,0,0"), "vFile: open: bad hex in path");
  BOOST_CHECK_EQUAL(parse_error("Z5,10,1"), "Z: type out of range");
  BOOST_CHECK_EQUAL(parse_error("qC:1"), "qC: unexpected characters at the end");
}

BOOST_AUTO_TEST_CASE(every_prefix_of_every_packet_is_safe) {
  // Truncating valid packets at every length must give a value, never a
  // crash or an out-of-bounds read (the sanitizer build checks the latter).
  const std::vector<std::string> packets = {"qSupported:multiprocess+;xmlRegisters=i386",
                                            "Hgp1a2.1a3",
                                            "vCont;r401000,401020:1a3;c:p1a2.-1",
                                            "Z0,401000,1;X3,220c05",
                                            "M1000,3:0a0b0c",
                                            "X10,2:ab",
                                            "P10=0010;thread:1b;",
                                            "qXfer:features:read:target.xml:1000,1000",
                                            "qXfer:siginfo:write::0:ab",
                                            "vFile:open:2f62696e2f6c73,0,1c0",
                                            "vFile:pwrite:5,10,ab",
                                            "vRun;2f62696e2f6c73;2d6c",
                                            "qSymbol:401000:6d61696e",
                                            "QCatchSyscalls:1;1;ca",
                                            "QPassSignals:e;f",
                                            "C0e;401000",
                                            "qRcmd,7768656e",
                                            "QRestoreRegisterState:3;thread:1b;",
                                            "_M1000,rwx"};
  for (const auto& packet : packets) {
    for (std::size_t n = 0; n <= packet.size(); ++n) {
      BOOST_CHECK_NO_THROW(parse_request(std::string_view(packet).substr(0, n)));
    }
  }
}

BOOST_AUTO_TEST_CASE(random_payloads_never_throw) {
  std::mt19937 rng(4242);
  const std::string alphabet = "qQvXZzmMHTgGpPcCsSkD?!_:;,.-=+*#$}0123456789abcdefxp\x03";
  const std::vector<std::string> heads = {
      "",  "q", "Q", "v", "qXfer:", "vFile:", "vCont;",   "H",
      "Z", "m", "M", "X", "p",      "P",      "qSymbol:", "vRun;"};
  for (int i = 0; i < 20000; ++i) {
    std::string payload = heads[rng() % heads.size()];
    for (std::size_t n = rng() % 24; n > 0; --n)
      payload.push_back(alphabet[rng() % alphabet.size()]);
    BOOST_CHECK_NO_THROW(parse_request(payload));
  }
}

BOOST_AUTO_TEST_CASE(each_packet_name_appears_once) {
  std::vector<std::string_view> names = known_packet_names();
  std::set<std::string_view> unique(names.begin(), names.end());
  BOOST_CHECK_EQUAL(unique.size(), names.size());
  BOOST_CHECK_GE(names.size(), 60u);
}
