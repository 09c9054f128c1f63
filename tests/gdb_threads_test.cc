// Unit tests of the gdb server's thread requests, against a fake target
// with three threads over a socketpair: which threads are listed, which one
// Hg selects for register reads (and that an unknown one is refused without
// changing the choice), that a stop names the thread that stopped and makes
// it the selected one, and which thread a vCont step names to the target;
// fork events (a child is reported, its breakpoints taken out without
// effect, detached; a held child keeps its starting registers; vforkdone).
#define BOOST_TEST_MODULE gdb_threads
#include <boost/test/unit_test.hpp>

#include "tests/support/fake_session.h"

using namespace backstep;
using namespace backstep::testing;

BOOST_AUTO_TEST_CASE(every_thread_is_listed_and_alive) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("qfThreadInfo") == "mp64.64,p64.65,p64.66");
  BOOST_TEST(c.ask("qsThreadInfo") == "l");
  BOOST_TEST(c.ask("Tp64.65") == "OK");
  BOOST_TEST(c.ask("T66") == "OK");
  BOOST_TEST(c.ask("Tp64.67") == "E03");
  BOOST_TEST(c.ask("Tp65.65") == "E03");  // another process
  std::string xml = c.ask("qXfer:threads:read::0,1000");
  BOOST_TEST(xml.find("<thread id=\"p64.65\" name=\"w101\"/>") != std::string::npos, xml);
  BOOST_TEST(xml.find("<thread id=\"p64.66\" name=\"a&lt;b&amp;&quot;c\"/>") != std::string::npos, xml);
}

BOOST_AUTO_TEST_CASE(hg_selects_the_thread_whose_registers_are_read) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("p10") == rip_of(0x64));  // before any stop: the main thread
  BOOST_TEST(c.ask("Hgp64.65") == "OK");
  BOOST_TEST(c.ask("p10") == rip_of(0x65));
  BOOST_TEST(c.ask("g").substr(16 * 16, 16) == rip_of(0x65));
  // An unknown thread is refused, and the choice stays.
  BOOST_TEST(c.ask("Hgp64.99") == "E03");
  BOOST_TEST(c.ask("p10") == rip_of(0x65));
  // lldb's suffix names the thread for one request.
  BOOST_TEST(c.ask("p10;thread:p64.66;") == rip_of(0x66));
  BOOST_TEST(c.ask("Hg0") == "OK");  // any: the thread of the last stop
  BOOST_TEST(c.ask("p10") == rip_of(0x64));
}

BOOST_AUTO_TEST_CASE(a_stop_names_its_thread_and_selects_it) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(c.ask("Hgp64.65") == "OK");
  std::string stop = c.ask("vCont;c:p64.-1");
  BOOST_TEST(stop.find("thread:p64.66;") != std::string::npos, stop);
  BOOST_TEST(stop.find("10:" + rip_of(0x66)) != std::string::npos, stop);  // expedited pc is its own
  BOOST_TEST(c.ask("qC") == "QCp64.66");
  BOOST_TEST(c.ask("p10") == rip_of(0x66));  // Hg follows the stop
}

BOOST_AUTO_TEST_CASE(a_vcont_step_names_the_stepped_thread) {
  FakeTarget target;
  Client c(target);
  c.ask("vCont;s:p64.65;c:p64.-1");
  BOOST_TEST(static_cast<int>(target.last_request.how) == static_cast<int>(ResumeRequest::How::Step));
  BOOST_TEST(target.last_request.thread == 0x65);
  c.ask("vCont;c:p64.-1");
  BOOST_TEST(static_cast<int>(target.last_request.how) == static_cast<int>(ResumeRequest::How::Continue));
  c.ask("vCont;r1000,1010:p64.64;c");
  BOOST_TEST(static_cast<int>(target.last_request.how) == static_cast<int>(ResumeRequest::How::RangeStep));
  BOOST_TEST(target.last_request.thread == 0x64);
  target.last_request = {};
  BOOST_TEST(c.ask("vCont;s:p64.99") == "E03");
  BOOST_TEST(target.last_request.thread == 0);  // not resumed
  // Legacy s steps the Hc thread.
  BOOST_TEST(c.ask("Hcp64.65") == "OK");
  c.ask("s");
  BOOST_TEST(target.last_request.thread == 0x65);
}

BOOST_AUTO_TEST_CASE(tls_addresses_are_asked_of_the_named_thread) {
  FakeTarget target;
  Client c(target);
  // The fake's answer: 0x7f0000000000 + (tid << 12) + link map + offset.
  BOOST_TEST(c.ask("qGetTLSAddr:p64.65,10,200") == "7f0000065210");
  BOOST_TEST(c.ask("qGetTLSAddr:p64.66,0,0") == "7f0000066000");
  BOOST_TEST(c.ask("qGetTLSAddr:p64.99,10,200") == "E03");  // no such thread
  BOOST_TEST(c.ask("qGetTLSAddr:p64.65,10") == "E16");
}

namespace {
TargetStop fork_stop(pid_t child, bool vfork) {
  TargetStop stop;
  stop.kind = TargetStop::Kind::Fork;
  stop.tid = 0x64;
  stop.child = child;
  stop.vfork = vfork;
  stop.child_regs.set_ip(0x401000 + static_cast<uint64_t>(child));
  return stop;
}
}  // namespace

BOOST_AUTO_TEST_CASE(forks_are_reported_to_a_client_that_asks_and_their_children_detached) {
  FakeTarget target;
  Client c(target);
  BOOST_TEST(!target.report_forks);  // not asked for by the client's first qSupported
  std::string features = c.ask("qSupported:multiprocess+;swbreak+;fork-events+;vfork-events+");
  BOOST_TEST(features.find(";fork-events+;vfork-events+") != std::string::npos, features);
  BOOST_TEST(target.report_forks);
  target.stops = {fork_stop(0x70, false)};
  std::string stop = c.ask("vCont;c:p64.-1");
  BOOST_TEST(stop.find("T05thread:p64.64;fork:p70.70;") == 0, stop);
  // gdb takes its breakpoints out of the child: nothing changes here.
  BOOST_TEST(c.ask("Hgp70.70") == "OK");
  BOOST_TEST(c.ask("z0,401000,1") == "OK");
  BOOST_TEST(c.ask("p10") == rip_of(0x400070));  // where the child starts (0x401070)
  BOOST_TEST(c.ask("m401000,4") == "E03");        // its memory is not served
  BOOST_TEST(c.ask("D;70") == "OK");
  BOOST_TEST(c.ask("Hgp70.70") == "E03");  // detached: gone
  BOOST_TEST(c.ask("Hgp64.64") == "OK");
  BOOST_TEST(c.ask("p10") == rip_of(0x64));
  BOOST_TEST(c.ask("D;71") == "E03");  // no such child
}

BOOST_AUTO_TEST_CASE(a_vfork_is_done_at_the_next_resume) {
  FakeTarget target;
  Client c(target);
  c.ask("qSupported:multiprocess+;fork-events+;vfork-events+");
  target.stops = {fork_stop(0x71, true)};
  BOOST_TEST(c.ask("vCont;c:p64.-1").find("vfork:p71.71;") != std::string::npos);
  BOOST_TEST(c.ask("D;71") == "OK");
  int resumes = target.resumes;
  // The child runs outside the debugged process: its parent's wait is over.
  BOOST_TEST(c.ask("vCont;c:p64.-1").find("vforkdone:;") != std::string::npos);
  BOOST_TEST(target.resumes == resumes);
  BOOST_TEST(c.ask("vCont;c:p64.-1").find("T05thread:p64.66;") == 0);  // the fake's own stop
  BOOST_TEST(target.resumes == resumes + 1);
}

BOOST_AUTO_TEST_CASE(a_held_child_is_not_reported_twice) {
  // detach-on-fork off: the client holds the child. Reached again after
  // going back, its fork is passed over (a second report would make it a
  // second inferior in gdb).
  FakeTarget target;
  Client c(target);
  c.ask("qSupported:multiprocess+;fork-events+;vfork-events+");
  target.stops = {fork_stop(0x70, false)};
  BOOST_TEST(c.ask("vCont;c:p64.-1").find("fork:p70.70;") != std::string::npos);
  BOOST_TEST(c.ask("Hgp70.70") == "OK");
  BOOST_TEST(c.ask("Z0,401000,1") == "OK");  // taken without effect
  target.stops = {fork_stop(0x70, false)};
  std::string stop = c.ask("vCont;c:p64.-1");
  BOOST_TEST(stop.find("fork:") == std::string::npos, stop);
  BOOST_TEST(target.resumes == 3);
  BOOST_TEST(c.console.find("backstep: ") == 0, c.console);  // said once that the child stays out
}

BOOST_AUTO_TEST_CASE(forks_are_not_reported_without_both_features) {
  FakeTarget target;
  Client c(target);
  std::string features = c.ask("qSupported:multiprocess+;fork-events+");
  BOOST_TEST(features.find("fork-events") == std::string::npos, features);
  BOOST_TEST(!target.report_forks);
}
