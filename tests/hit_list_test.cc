// Reverse-continue answered from the hits an earlier backward search listed
// (HitList, engine/timeline/hit_list.h): the landings must be exactly those of a
// forward replay, hit for hit, whether the client steps back off each hit
// first (as gdb does after a conditional breakpoint's false condition) or
// not, and a change of breakpoints must make the timeline search again.
#define BOOST_TEST_MODULE hit_list
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <map>
#include <string>

#include "engine/timeline/replay_timeline.h"
#include "tests/support/recording.h"
#include "tests/support/timeline_steps.h"

using namespace backstep;

namespace {

// tests/programs/loop_target.c: three rounds of 300 tick(i) calls without
// system calls, a write between rounds; exit status total % 200.
struct Recording : testing::Recording {
  Recording() : testing::Recording(LOOP_TARGET) { BOOST_REQUIRE(result().completed); }
};

using testing::go;

int64_t read_long(ReplayTimeline& t, uint64_t addr) { return testing::read_value<int64_t>(t, addr); }

// What a forward replay shows at each hit of tick(i), i >= first.
std::map<int64_t, Registers> forward_hits(const Recording& rec, uint64_t tick, int64_t first) {
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(tick, TrapKind::Software);
  std::map<int64_t, Registers> out;
  for (;;) {
    TargetStop s = go(t, RunDirection::Forward);
    if (s.kind != TargetStop::Kind::Breakpoint) break;
    Registers r = t.registers(0);
    int64_t i = static_cast<int64_t>(r.raw().rdi);
    if (i >= first) out[i] = r;
  }
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(backwards_hit_by_hit_like_a_forward_replay) {
  Recording rec;
  uint64_t tick = testing::require_symbol(rec.binary(), "tick"), total = testing::require_symbol(rec.binary(), "total");
  const int64_t first = 700;
  std::map<int64_t, Registers> expected = forward_hits(rec, tick, first);
  BOOST_REQUIRE_EQUAL(expected.size(), 200u);

  ReplayTimeline t(rec.trace());
  BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::HistoryEnd);
  t.set_breakpoint(tick, TrapKind::Software);
  uint64_t served_before = t.listed_hits_served();
  for (int64_t i = 899; i >= first; --i) {
    // Every other hit, step back off the breakpoint first, as gdb does.
    if (i % 2 == 0 && i != 899) BOOST_REQUIRE(go(t, RunDirection::Backward, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    TargetStop s = go(t, RunDirection::Backward);
    BOOST_REQUIRE_MESSAGE(s.kind == TargetStop::Kind::Breakpoint, "at i=" << i << ": " << to_string(s.kind));
    Registers r = t.registers(0);
    BOOST_REQUIRE_MESSAGE(Registers::differences(expected.at(i), r).empty(),
                          "at i=" << i << ": " << Registers::differences(expected.at(i), r));
    BOOST_REQUIRE_EQUAL(read_long(t, total), i * (i - 1) / 2);
  }
  // All but the first landing came from the list.
  BOOST_TEST(t.listed_hits_served() - served_before >= 199u);

  // Another breakpoint changes what counts as a hit: a new search, whose
  // answer is the other breakpoint's hit in the call before.
  t.set_breakpoint(tick + 1, TrapKind::Software);  // tick's second instruction
  uint64_t served = t.listed_hits_served();
  TargetStop s = go(t, RunDirection::Backward);
  BOOST_REQUIRE(s.kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(s.address == tick + 1);
  BOOST_TEST(static_cast<int64_t>(t.registers(0).raw().rdi) == first - 1);
  BOOST_TEST(t.listed_hits_served() == served);
}

// gdb at each false hit of a conditional breakpoint going backwards: a
// reverse step off the hit, then a reverse-continue. The steps of many
// passes before a hit are cached in one fill (timeline_search.cc,
// batched_before), and each step off and each landing after it must be
// exactly where a timeline without the cache, seeking every time, goes.
BOOST_AUTO_TEST_CASE(steps_off_each_hit_land_where_seeks_land) {
  Recording rec;
  uint64_t tick = testing::require_symbol(rec.binary(), "tick"), total = testing::require_symbol(rec.binary(), "total");
  ReplayTimeline cached(rec.trace()), seeking(rec.trace());
  seeking.set_trajectory_use(ReplayTimeline::TrajectoryUse::Off);
  for (ReplayTimeline* t : {&cached, &seeking}) {
    BOOST_REQUIRE(go(*t, RunDirection::Forward).kind == TargetStop::Kind::HistoryEnd);
    t->set_breakpoint(tick, TrapKind::Software);
    BOOST_REQUIRE(go(*t, RunDirection::Backward).kind == TargetStop::Kind::Breakpoint);
  }
  uint64_t served_before = cached.trajectory().steps_served;
  for (int64_t i = 898; i >= 601; --i) {
    for (bool step : {true, false}) {
      auto how = step ? ResumeRequest::How::Step : ResumeRequest::How::Continue;
      TargetStop a = go(cached, RunDirection::Backward, how), b = go(seeking, RunDirection::Backward, how);
      std::string where = std::string(step ? "step off" : "reverse-continue to") + " i=" + std::to_string(i);
      BOOST_REQUIRE_MESSAGE(a.kind == b.kind, where << ": " << to_string(a.kind) << " vs " << to_string(b.kind));
      BOOST_REQUIRE_MESSAGE(cached.describe_position() == seeking.describe_position(),
                            where << ": " << cached.describe_position() << " vs " << seeking.describe_position());
      Registers ra = cached.registers(0), rb = seeking.registers(0);
      BOOST_REQUIRE_MESSAGE(Registers::differences(ra, rb).empty(), where << ": " << Registers::differences(ra, rb));
      BOOST_REQUIRE_EQUAL(read_long(cached, total), read_long(seeking, total));
      if (!step) BOOST_REQUIRE_EQUAL(static_cast<int64_t>(ra.raw().rdi), i);
    }
  }
  // The steps off came from the cache: passes were filled many at a time.
  BOOST_TEST(cached.trajectory().steps_served - served_before >= 250u);
  BOOST_TEST(cached.trajectory().runs() > 2u);
}
