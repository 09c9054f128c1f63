// What a debugger client may ask of the timeline's breakpoints and
// watchpoints, on a real recording: a watchpoint costs the same whatever
// length is asked (the debug registers cover 32 bytes at most), nothing is
// set outside user space, the breakpoints are bounded in number, and a
// debug register the kernel refuses at a resume is an error for that resume
// only: the replay stays where it was and goes on once the watchpoint is
// gone.
#define BOOST_TEST_MODULE trap_bounds
#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>

#include "engine/replay/replay_session.h"
#include "engine/timeline/replay_timeline.h"
#include "tests/support/recording.h"
#include "tests/support/timeline_steps.h"

using namespace backstep;

namespace {

struct Recording : testing::Recording {
  Recording() : testing::Recording(TIMELINE_TARGET) { BOOST_REQUIRE(result().completed); }
};

ReplayOptions quiet() {
  ReplayOptions o;
  o.echo_stdio = false;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_watch_range_costs_the_same_at_any_length) {
  // 2^32 bytes would be 2^29 slots: only enough of them to tell it does not fit.
  for (uint64_t len : {uint64_t{33}, uint64_t{0xffffffff}, UINT64_MAX - 0x1000}) {
    BOOST_TEST(watch_slots({0x1000, len, WatchKind::Write}).size() == kDebugRegisters + 1, len);
    BOOST_TEST(watch_slot_count({{0x1000, len, WatchKind::Write}, {0x2000, len, WatchKind::Write}}) > kDebugRegisters);
  }
  BOOST_TEST(watch_slots({0x1000, 32, WatchKind::Write}).size() == kDebugRegisters);
  BOOST_TEST(kLongestWatch == DebugTarget::kMaxWatchLength);
}

BOOST_AUTO_TEST_CASE(user_space_ends_below_the_non_canonical_hole) {
  BOOST_TEST(in_user_space(0x401000, 8));
  BOOST_TEST(in_user_space(kUserSpaceEnd - 8, 8));
  BOOST_TEST(!in_user_space(kUserSpaceEnd - 4, 8));     // crosses the end
  BOOST_TEST(!in_user_space(kUserSpaceEnd, 1));
  BOOST_TEST(!in_user_space(0x8000000000000000, 8));    // non-canonical
  BOOST_TEST(!in_user_space(0xffffffffff600000, 8));    // the kernel's half
  BOOST_TEST(!in_user_space(0xfffffffffffffff8, 16));   // wraps
  BOOST_TEST(!in_user_space(0x401000, 0));
}

BOOST_AUTO_TEST_CASE(the_timeline_refuses_what_it_cannot_serve) {
  Recording rec;
  uint64_t values = testing::require_symbol(rec.binary(), "values");
  ReplayTimeline t(rec.trace());
  BOOST_TEST(!t.set_watchpoint(values, 0xffffffff, WatchKind::Write));
  BOOST_TEST(!t.set_watchpoint(values, DebugTarget::kMaxWatchLength + 8, WatchKind::Write));
  BOOST_TEST(!t.set_watchpoint(0x8000000000000000, 8, WatchKind::Write));
  BOOST_TEST(!t.set_watchpoint(kUserSpaceEnd, 8, WatchKind::Access));
  BOOST_TEST(!t.set_breakpoint(0x8000000000000000, TrapKind::Hardware));
  BOOST_TEST(!t.set_breakpoint(kUserSpaceEnd, TrapKind::Software));
  BOOST_REQUIRE(values % 8 == 0);
  BOOST_TEST(t.set_watchpoint(values, DebugTarget::kMaxWatchLength, WatchKind::Write));  // four 8-byte slots

  // Breakpoints: up to the bound, setting one again is free, then refused.
  for (uint64_t i = 0; i < DebugTarget::kMaxBreakpoints; ++i) {
    BOOST_REQUIRE(t.set_breakpoint(0x10000000 + i, TrapKind::Software));
  }
  BOOST_TEST(t.set_breakpoint(0x10000000, TrapKind::Software));
  BOOST_TEST(!t.set_breakpoint(0x20000000, TrapKind::Software));
  BOOST_TEST(!t.set_breakpoint(0x20000000, TrapKind::Hardware));
  BOOST_TEST(t.remove_breakpoint(0x10000000, TrapKind::Software));
  BOOST_TEST(t.set_breakpoint(0x20000000, TrapKind::Software));
}

BOOST_AUTO_TEST_CASE(a_refused_debug_register_fails_that_resume_only) {
  Recording rec;
  ReplaySession s(rec.trace(), quiet());
  // Past the timeline's checks (the session takes what it is given): the
  // kernel refuses this address when the debug register is written.
  ReplaySession::Resume step;
  step.stop_after_event = true;
  step.traps.watchpoints = {{kUserSpaceEnd, 8, WatchKind::Write}};
  for (int i = 0; i < 2; ++i) {
    try {
      s.resume(step);
      BOOST_FAIL("the resume went on with a watchpoint the kernel refuses");
    } catch (const std::runtime_error& e) {
      BOOST_TEST(std::string(e.what()).find("cannot watch 8 bytes at 0x7ffffffff000") != std::string::npos, e.what());
    }
  }
  // Nothing moved: without it the replay runs to the recorded end.
  ReplayResult r = s.run_to_end();
  BOOST_TEST((r.end == ReplayResult::End::Exited), r.message);
  BOOST_TEST(r.exit_status == 55);
}

// Traps belong to one run (ReplaySession::Resume::traps): the run after a
// breakpoint hit, and a clone made at the hit, stop at none unless they
// name it again.
BOOST_AUTO_TEST_CASE(traps_belong_to_the_run_that_names_them) {
  Recording rec;
  const uint64_t bump = testing::require_symbol(rec.binary(), "bump");
  ReplaySession s(rec.trace(), quiet());
  ReplaySession::Resume to_bump;
  to_bump.traps.breakpoints = {bump};
  ReplayStop first = s.resume(to_bump);
  BOOST_TEST((first.kind == ReplayStop::Kind::Breakpoint));
  BOOST_TEST(first.address == bump);
  // A copy at the hit, run with no traps: to the end, through nine more calls.
  std::unique_ptr<ReplaySession> copy = s.clone();
  ReplayStop through = copy->resume({});
  BOOST_TEST((through.kind == ReplayStop::Kind::ProgramEnd));
  // The original, naming the breakpoint again, hits it nine more times.
  int hits = 0;
  for (;;) {
    ReplayStop r = s.resume(to_bump);
    if (r.kind != ReplayStop::Kind::Breakpoint) {
      BOOST_TEST((r.kind == ReplayStop::Kind::ProgramEnd));
      break;
    }
    BOOST_TEST(r.address == bump);
    ++hits;
  }
  BOOST_TEST(hits == 9);
}
