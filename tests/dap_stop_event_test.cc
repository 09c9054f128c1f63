// Unit tests of what gdb's *stopped records become as DAP `stopped` events:
// each reason, both directions, and the words an IDE shows. The records are
// gdb 13's, as it writes them against backstep's server.
#define BOOST_TEST_MODULE dap_stop_event
#include <boost/test/unit_test.hpp>
#include <string>

#include "dap/stop_event.h"

using namespace backstep::dap;

namespace {

mi::Record record(const std::string& line) {
  auto parsed = mi::parse_record(line);
  BOOST_REQUIRE(std::holds_alternative<mi::Record>(parsed));
  return std::get<mi::Record>(parsed);
}

const std::string kFrame =
    R"(frame={addr="0x0000555555555164",func="fill",args=[{name="n",value="8"}],file="buggy.c",fullname="/src/buggy.c",line="17",arch="i386:x86-64"})";

std::string body_text(const StopView& v) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(stopped_event_body(v));
  return os.str();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_breakpoint_names_its_id_and_thread) {
  BreakpointNames names;
  auto v = view_stop(record(R"(*stopped,reason="breakpoint-hit",disp="keep",bkptno="3",)" + kFrame +
                            R"(,thread-id="2",stopped-threads="all")"),
                     RunDirection::Forward, RunCause::Other, names);
  BOOST_CHECK_EQUAL(v.reason, "breakpoint");
  BOOST_CHECK(v.thread_id && *v.thread_id == 2);
  BOOST_REQUIRE_EQUAL(v.hit_breakpoint_ids.size(), 1u);
  BOOST_CHECK_EQUAL(v.hit_breakpoint_ids[0], 3);
  BOOST_CHECK_EQUAL(body_text(v),
                    R"({"allThreadsStopped":true,"description":"breakpoint","hitBreakpointIds":[3],)"
                    R"("reason":"breakpoint","threadId":2})");
  names.functions.insert(3);
  auto f = view_stop(record(R"(*stopped,reason="breakpoint-hit",bkptno="3",thread-id="2")"), RunDirection::Backward,
                     RunCause::Other, names);
  BOOST_CHECK_EQUAL(f.reason, "function breakpoint");
}

BOOST_AUTO_TEST_CASE(a_watchpoint_shows_the_value_before_and_after_the_write_in_both_directions) {
  BreakpointNames names;
  names.watches[2] = "t.limit";
  std::string line = R"(*stopped,reason="watchpoint-trigger",wpt={number="2",exp="*(int *) 0x555555558060"},)"
                     R"(value={old="64",new="100"},)" +
                     kFrame + R"(,thread-id="1",stopped-threads="all")";
  // Backwards, gdb's old value is the one the write left.
  auto back = view_stop(record(line), RunDirection::Backward, RunCause::Other, names);
  BOOST_CHECK_EQUAL(back.reason, "data breakpoint");
  BOOST_CHECK_EQUAL(back.text, "t.limit: 100 -> 64");
  BOOST_CHECK_EQUAL(back.description, "data breakpoint: t.limit: 100 -> 64");
  BOOST_REQUIRE_EQUAL(back.hit_breakpoint_ids.size(), 1u);
  BOOST_CHECK_EQUAL(back.hit_breakpoint_ids[0], 2);
  auto forward = view_stop(record(line), RunDirection::Forward, RunCause::Other, names);
  BOOST_CHECK_EQUAL(forward.text, "t.limit: 64 -> 100");
  // Unnamed (set from the REPL): gdb's expression.
  auto unnamed = view_stop(record(line), RunDirection::Forward, RunCause::Other, BreakpointNames{});
  BOOST_CHECK_EQUAL(unnamed.text, "*(int *) 0x555555558060: 64 -> 100");
  auto read = view_stop(record(R"(*stopped,reason="read-watchpoint-trigger",hw-rwpt={number="4",exp="x"},)"
                               R"(value={value="7"},thread-id="1")"),
                        RunDirection::Forward, RunCause::Other, names);
  BOOST_CHECK_EQUAL(read.reason, "data breakpoint");
  BOOST_CHECK_EQUAL(read.text, "x: value 7");
  BOOST_CHECK_EQUAL(read.hit_breakpoint_ids.at(0), 4);
}

BOOST_AUTO_TEST_CASE(the_ends_of_the_recording_follow_the_direction) {
  // gdb gives no reason at either end of the history.
  std::string line = R"(*stopped,frame={addr="0x00007ffff7fe4b70",func="_start",args=[]},thread-id="1",stopped-threads="all")";
  auto start = view_stop(record(line), RunDirection::Backward, RunCause::Other, {});
  BOOST_CHECK_EQUAL(start.reason, "start of recording");
  BOOST_CHECK_EQUAL(start.description, "start of recording");
  auto end = view_stop(record(line), RunDirection::Forward, RunCause::Other, {});
  BOOST_CHECK_EQUAL(end.reason, "end of recording");
  auto entry = view_stop(record(line), RunDirection::Forward, RunCause::Launch, {});
  BOOST_CHECK_EQUAL(entry.reason, "entry");
  BOOST_CHECK_EQUAL(entry.description, "start of recording");
  BOOST_CHECK(!entry.exited);
  // `starti` (a restart that stays at the start) stops with "signal 0".
  auto starti = view_stop(record(R"(*stopped,reason="signal-received",signal-name="0",signal-meaning="Signal 0",)"
                                 R"(thread-id="1")"),
                          RunDirection::Forward, RunCause::Launch, {});
  BOOST_CHECK_EQUAL(starti.reason, "entry");
}

BOOST_AUTO_TEST_CASE(steps_signals_pauses_and_exits) {
  auto step = view_stop(record(R"(*stopped,reason="end-stepping-range",)" + kFrame + R"(,thread-id="1")"),
                        RunDirection::Backward, RunCause::Other, {});
  BOOST_CHECK_EQUAL(step.reason, "step");
  auto finish = view_stop(record(R"(*stopped,reason="function-finished",)" + kFrame +
                                 R"(,gdb-result-var="$1",return-value="4",thread-id="1")"),
                          RunDirection::Forward, RunCause::Other, {});
  BOOST_CHECK_EQUAL(finish.reason, "step");
  BOOST_CHECK_EQUAL(finish.text, "returned 4");
  auto segv = view_stop(record(R"(*stopped,reason="signal-received",signal-name="SIGSEGV",)"
                               R"(signal-meaning="Segmentation fault",)" +
                               kFrame + R"(,thread-id="1")"),
                        RunDirection::Forward, RunCause::Other, {});
  BOOST_CHECK_EQUAL(segv.reason, "exception");
  BOOST_CHECK_EQUAL(segv.description, "signal SIGSEGV (Segmentation fault)");
  // A pause shows as a pause, whatever signal gdb's interrupt reports.
  auto pause = view_stop(record(R"(*stopped,reason="signal-received",signal-name="SIGINT",thread-id="1")"),
                         RunDirection::Backward, RunCause::Pause, {});
  BOOST_CHECK_EQUAL(pause.reason, "pause");
  // But a SIGSEGV met while a pause was asked for is still the SIGSEGV.
  auto segv_in_pause = view_stop(record(R"(*stopped,reason="signal-received",signal-name="SIGSEGV",thread-id="1")"),
                                 RunDirection::Forward, RunCause::Pause, {});
  BOOST_CHECK_EQUAL(segv_in_pause.reason, "exception");
  // gdb writes exit codes in octal.
  auto exit = view_stop(record(R"(*stopped,reason="exited",exit-code="012")"), RunDirection::Forward,
                        RunCause::Other, {});
  BOOST_CHECK(exit.exited);
  BOOST_CHECK_EQUAL(exit.exit_code, 10);
  auto killed = view_stop(record(R"(*stopped,reason="exited-signalled",signal-name="SIGSEGV",)"
                                 R"(signal-meaning="Segmentation fault")"),
                          RunDirection::Forward, RunCause::Other, {});
  BOOST_CHECK(killed.exited);
  BOOST_CHECK_EQUAL(killed.exit_code, 128 + 11);
  auto normal = view_stop(record(R"(*stopped,reason="exited-normally")"), RunDirection::Forward, RunCause::Other, {});
  BOOST_CHECK(normal.exited);
  BOOST_CHECK_EQUAL(normal.exit_code, 0);
}

BOOST_AUTO_TEST_CASE(bytes_that_are_not_utf8_reach_json_replaced_not_asserted) {
  StopView v;
  v.reason = "data breakpoint";
  v.text = std::string("s: \xff\xfe -> ok");
  std::string body = body_text(v);
  BOOST_CHECK(body.find("\xef\xbf\xbd") != std::string::npos);  // U+FFFD
}
