// Unit tests of lldb's dialect in the gdb server (handlers_lldb.cc), against
// the fake target: qShlibInfoAddr names the DT_DEBUG slot, qMemoryRegionInfo
// the mapping or the gap around an address, qProcessInfo and every thread
// id a pid no local process can have once the client behaves like lldb
// (and the recorded one for gdb), error replies with text after
// QEnableErrorStrings.
#define BOOST_TEST_MODULE lldb_session
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <cstdio>

#include "gdbserver/gdb_signals.h"
#include "gdbserver/rsp/hex.h"
#include "tests/support/fake_session.h"

using namespace backstep;
using namespace backstep::testing;

namespace {

// 10'000'000 + kPid (0x64), in hex: what lldb is told the pid is.
const std::string kLldbPid = "9896e4";

}  // namespace

BOOST_AUTO_TEST_CASE(shlib_info_addr_is_the_dt_debug_slot) {
  FakeTarget target;
  target.debug_slot = 0x555555557ea8;
  Client c(target);
  BOOST_TEST(c.ask("qShlibInfoAddr") == "555555557ea8");
  target.debug_slot.reset();  // a static program
  BOOST_TEST(c.ask("qShlibInfoAddr") == "E26");
}

BOOST_AUTO_TEST_CASE(memory_regions_come_from_the_mappings) {
  FakeTarget target;
  target.mappings = {{0x400000, 0x401000, true, false, true, "/bin/prog"},
                     {0x402000, 0x404000, true, true, false, ""},
                     {0x405000, 0x406000, false, false, false, ""}};
  Client c(target);
  std::string prog = rsp::hex_encode("/bin/prog");
  BOOST_TEST(c.ask("qMemoryRegionInfo:400000") == "start:400000;size:1000;permissions:rx;name:" + prog + ";");
  BOOST_TEST(c.ask("qMemoryRegionInfo:400fff") == "start:400000;size:1000;permissions:rx;name:" + prog + ";");
  BOOST_TEST(c.ask("qMemoryRegionInfo:403000") == "start:402000;size:2000;permissions:rw;");
  // Gaps: below the first mapping, between two, after the last.
  BOOST_TEST(c.ask("qMemoryRegionInfo:0") == "start:0;size:400000;");
  BOOST_TEST(c.ask("qMemoryRegionInfo:401000") == "start:401000;size:1000;");
  BOOST_TEST(c.ask("qMemoryRegionInfo:406000") == "start:406000;size:ffffffffffbf9fff;");
  // A PROT_NONE guard: no permissions either.
  BOOST_TEST(c.ask("qMemoryRegionInfo:405800") == "start:405000;size:1000;");
}

BOOST_AUTO_TEST_CASE(lldb_sees_a_pid_no_local_process_has) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("QThreadSuffixSupported") == "OK");
  std::string info = c.ask("qProcessInfo");
  BOOST_TEST(info.starts_with("pid:" + kLldbPid + ";triple:" + rsp::hex_encode("x86_64-pc-linux-gnu") + ";"),
             info);
  BOOST_TEST(c.ask("qfThreadInfo") == "mp" + kLldbPid + ".64,p" + kLldbPid + ".65,p" + kLldbPid + ".66");
  BOOST_TEST(c.ask("qC") == "QCp" + kLldbPid + ".64");
  BOOST_TEST(c.ask("Tp" + kLldbPid + ".65") == "OK");
  BOOST_TEST(c.ask("Tp64.65") == "E03");  // the recorded pid is not this process's any more
  BOOST_TEST(c.ask("p10;thread:p" + kLldbPid + ".65;") == rip_of(0x65));
  std::string stop = c.ask("vCont;c");
  BOOST_TEST(stop.find("thread:p" + kLldbPid + ".66;") != std::string::npos, stop);
}

BOOST_AUTO_TEST_CASE(gdb_sees_the_recorded_pid) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("qC") == "QCp64.64");
  BOOST_TEST(c.ask("qfThreadInfo") == "mp64.64,p64.65,p64.66");
}

BOOST_AUTO_TEST_CASE(stop_replies_list_every_thread_and_its_pc) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("QListThreadsInStopReply") == "OK");
  std::string stop = c.ask("vCont;c");
  BOOST_TEST(stop.find(";threads:p" + kLldbPid + ".64,p" + kLldbPid + ".65,p" + kLldbPid + ".66;") !=
                 std::string::npos,
             stop);
  BOOST_TEST(stop.find(";thread-pcs:1064,1065,1066;") != std::string::npos, stop);
}

BOOST_AUTO_TEST_CASE(host_info_describes_an_x86_64_linux_target) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("qHostInfo") == "triple:" + rsp::hex_encode("x86_64-pc-linux-gnu") +
                                       ";ostype:linux;vendor:pc;endian:little;ptrsize:8;"
                                       "watchpoint_exceptions_received:after;");
  BOOST_TEST(c.ask("qWatchpointSupportInfo:") == "num:4;");
}

BOOST_AUTO_TEST_CASE(error_replies_carry_text_once_asked) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("Tp64.99") == "E03");
  BOOST_TEST(c.ask("m10") == "E16");
  BOOST_TEST(c.ask("QEnableErrorStrings") == "OK");
  BOOST_TEST(c.ask("Tp" + kLldbPid + ".99") == "E03;" + rsp::hex_encode("no such thread in the replayed process"));
  // A malformed packet: the parser's own words.
  std::string reply = c.ask("m10");
  BOOST_REQUIRE(reply.starts_with("E16;"));
  std::optional<std::string> text = rsp::hex_decode_text(reply.substr(4));
  BOOST_REQUIRE(text);
  BOOST_TEST(text->starts_with("m: "), *text);
  target.debug_slot.reset();
  reply = c.ask("qShlibInfoAddr");
  BOOST_TEST(reply == "E26;" + rsp::hex_encode("the program has no DT_DEBUG entry (statically linked?)"));
}

// The stop reply's signal ("T<sig>thread:...") and a resume's ("C<sig>"), in
// each dialect, for every signal a program can receive.
BOOST_AUTO_TEST_CASE(lldb_gets_linux_signal_numbers_and_gdb_its_own) {
  for (bool lldb : {false, true}) {
    FakeTarget target;
    Client c(target);
    if (lldb) BOOST_REQUIRE(c.ask("QThreadSuffixSupported") == "OK");
    for (int sig = 1; sig <= 64; ++sig) {
      if (sig == SIGKILL || sig == SIGSTOP) continue;  // never delivered to a handler or stopped at
      target.stop_signal = sig;
      int wire = lldb ? sig : gdb::to_gdb_signal(sig);
      if (wire == 0) continue;  // SIGSTKFLT: gdb has no number for it
      char want[8];
      snprintf(want, sizeof(want), "T%02x", wire);
      std::string stop = c.ask("c");
      BOOST_TEST(stop.substr(0, 3) == want, "signal " << sig << (lldb ? " (lldb)" : " (gdb)") << ": " << stop);
      // Resuming with that signal names the same Linux signal.
      snprintf(want, sizeof(want), "C%02x", wire);
      c.ask(want);
      BOOST_TEST(target.last_request.signal == sig, "signal " << sig << (lldb ? " (lldb)" : " (gdb)"));
    }
  }
  // The two numberings differ where lldb got SIGPWR for a SIGUSR1.
  BOOST_TEST(gdb::to_gdb_signal(SIGUSR1) == 30);
  BOOST_TEST(SIGPWR == 30);
}
