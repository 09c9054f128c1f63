// Calls the recorder cannot record faithfully stop the recording with a
// message that names them; the trace keeps the registers of the call, so
// replay runs up to it. The same calls, failing, are recorded like any other.
#define BOOST_TEST_MODULE record_refusal
#include <boost/test/unit_test.hpp>

#include <sys/syscall.h>

#include <string>

#include "values/registers.h"
#include "engine/replay/replay_session.h"
#include "engine/trace/reader.h"
#include "tests/support/recording.h"

using namespace backstep;

namespace {

ReplayOptions quiet() {
  ReplayOptions o;
  o.echo_stdio = false;
  return o;
}

// The last event of the trace.
trace::Event last_event(const std::string& trace_dir) {
  trace::TraceReader in(trace_dir);
  std::optional<trace::Event> last;
  while (auto e = in.next()) last = std::move(*e);
  BOOST_REQUIRE(last);
  return *last;
}

// Records `refusals CASE`, expects it stopped with `needle` in the reason at
// system call `nr`, and replays up to there.
void expect_refused(const std::string& which, const std::string& needle, long nr) {
  testing::Recording rec(REFUSALS_PROGRAM, {which});
  BOOST_TEST(!rec.result().completed, which);
  BOOST_TEST(rec.result().exit_status == 125, which);
  BOOST_TEST(rec.result().stop_reason.find(needle) != std::string::npos,
             which << ": " << rec.result().stop_reason);
  trace::Event abort = last_event(rec.trace());
  BOOST_TEST((abort.kind == trace::EventKind::Abort), which);
  BOOST_REQUIRE_MESSAGE(abort.regs, which << ": the abort keeps no registers");
  BOOST_TEST(static_cast<long>(Registers::from_block(*abort.regs).syscallno()) == nr, which);
  ReplayResult r = ReplaySession(rec.trace(), quiet()).run_to_end();
  BOOST_TEST((r.end == ReplayResult::End::RecordingStopped), which << ": " << r.message);
}

}  // namespace

BOOST_AUTO_TEST_CASE(ioctl_writing_through_nested_pointers_is_refused_when_it_succeeds) {
  expect_refused("ethtool", "ioctl request 0x8946 on fd", SYS_ioctl);
  expect_refused("ethtool", "succeeded, but it writes through pointers", SYS_ioctl);
}

BOOST_AUTO_TEST_CASE(prctl_set_mm_is_recorded_until_it_moves_the_heap) {
  // Without CAP_SYS_RESOURCE (as in most containers) each sub-option but
  // MAP_SIZE fails with EPERM, which is recorded; with it, ARG_START is
  // recorded and START_BRK's success ends the recording after the call.
  testing::Recording rec(REFUSALS_PROGRAM, {"set-mm"});
  if (!rec.result().completed) {
    BOOST_TEST(rec.result().stop_reason.find("moved the heap's bounds") != std::string::npos,
               rec.result().stop_reason);
    return;
  }
  ReplayResult r = ReplaySession(rec.trace(), quiet()).run_to_end();
  BOOST_TEST((r.end == ReplayResult::End::Exited), r.message);
}

BOOST_AUTO_TEST_CASE(the_same_calls_failing_are_recorded) {
  for (const char* which : {"ethtool-fails", "unknown-fails"}) {
    testing::Recording rec(REFUSALS_PROGRAM, {which});
    BOOST_TEST(rec.result().completed, which << ": " << rec.result().stop_reason);
    ReplayResult r = ReplaySession(rec.trace(), quiet()).run_to_end();
    BOOST_TEST((r.end == ReplayResult::End::Exited), which << ": " << r.message);
  }
}
