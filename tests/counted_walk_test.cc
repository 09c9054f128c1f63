// Walks to "the n-th hit of a breakpoint" and backward searches whose
// breakpoint hits the kernel counts (engine/core/hit_counter.h,
// engine/timeline/timeline_counting.cc) land exactly where walks and
// searches that stop at every hit with an int3 land: two timelines over the
// same recording, one counting and one not, take the same random moves
// (reverse-continue, reverse-stepi, continue, stepi, seeks to checkpoints)
// and must show the same position, registers and memory after each, and
// the states of a plain forward replay at each hit. With one breakpoint,
// and with two whose hits interleave (the kernel's counts do not say in
// which order: those stretches are searched again hit by hit). The same
// for walks counted by a counting stub in the program, where the kernel
// does not count (walk_by_stub).
#define BOOST_TEST_MODULE counted_walk
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/core/hit_counter.h"
#include "engine/timeline/replay_timeline.h"
#include "tests/support/loop_target_states.h"
#include "tests/support/recording.h"
#include "tests/support/timeline_steps.h"

using namespace backstep;
using testing::forward_hit_digests;
using testing::go;
using testing::loop_state_digest;

namespace backstep {
std::ostream& operator<<(std::ostream& os, TargetStop::Kind k) { return os << to_string(k); }
}  // namespace backstep

namespace {

constexpr int kHits = 900;  // tick() calls in tests/programs/loop_target.c

struct Recording : testing::Recording {
  Recording() : testing::Recording(LOOP_TARGET) { BOOST_REQUIRE(result().completed); }
};

// Who counts in the counting timeline: the kernel, or a counting stub.
enum class Counter { Kernel, Stub };

// The same random moves on a counting and a stopping timeline, with a
// breakpoint on tick (and on tock when `both`).
void compare_moves(Recording& rec, bool both, unsigned seed, Counter counter) {
  uint64_t tick = testing::require_symbol(rec.binary(), "tick");
  uint64_t tock = testing::require_symbol(rec.binary(), "tock");
  uint64_t total = testing::require_symbol(rec.binary(), "total");
  uint64_t history = testing::require_symbol(rec.binary(), "history");

  // A plain forward replay: the state at each hit.
  std::vector<uint64_t> at_hit = forward_hit_digests(rec.trace(), tick, total, history, kHits);

  ReplayTimeline counted(rec.trace()), stopped(rec.trace());
  counted.set_kernel_counting(counter == Counter::Kernel ? ReplayTimeline::KernelCounting::On
                                                         : ReplayTimeline::KernelCounting::Off);
  stopped.set_kernel_counting(ReplayTimeline::KernelCounting::Off);
  stopped.set_stub_walks(ReplayTimeline::StubWalks::Off);
  BOOST_REQUIRE(counted.kernel_counting() == (counter == Counter::Kernel));
  BOOST_REQUIRE(!stopped.kernel_counting());
  // Names compared: no approach, whose names depend on where time stops
  // fall (tests/approach_test.cc compares its landings by state).
  counted.set_approach(ReplayTimeline::Approach::Off);
  stopped.set_approach(ReplayTimeline::Approach::Off);
  // Few checkpoints: walks start far back and cross many hits.
  for (ReplayTimeline* t : {&counted, &stopped}) {
    t->set_checkpoint_limit(4);
    BOOST_REQUIRE(go(*t, RunDirection::Forward).kind == TargetStop::Kind::HistoryEnd);
    t->set_breakpoint(tick, TrapKind::Software);
    if (both) t->set_breakpoint(tock, TrapKind::Software);
  }

  std::mt19937 random(seed);
  std::vector<int> user_checkpoints;
  int landings_on_hits = 0, landings_on_tock = 0;
  for (int move = 0; move < 400; ++move) {
    int what = static_cast<int>(random() % 10);
    std::string name;
    TargetStop a, b;
    if (what < 4) {
      name = "reverse-continue";
      a = go(counted, RunDirection::Backward);
      b = go(stopped, RunDirection::Backward);
    } else if (what < 6) {
      name = "reverse-stepi";
      a = go(counted, RunDirection::Backward, ResumeRequest::How::Step);
      b = go(stopped, RunDirection::Backward, ResumeRequest::How::Step);
    } else if (what == 6) {
      name = "continue";
      a = go(counted, RunDirection::Forward);
      b = go(stopped, RunDirection::Forward);
    } else if (what == 7) {
      name = "stepi";
      a = go(counted, RunDirection::Forward, ResumeRequest::How::Step);
      b = go(stopped, RunDirection::Forward, ResumeRequest::How::Step);
    } else if (what == 8 || user_checkpoints.empty()) {
      // A checkpoint here in both, for a later seek back to it.
      name = "checkpoint";
      int id = counted.create_checkpoint();
      BOOST_REQUIRE_EQUAL(stopped.create_checkpoint(), id);
      user_checkpoints.push_back(id);
      a = b = TargetStop{};
    } else {
      name = "restart at a checkpoint";
      int id = user_checkpoints[random() % user_checkpoints.size()];
      BOOST_REQUIRE(counted.restart_checkpoint(id));
      BOOST_REQUIRE(stopped.restart_checkpoint(id));
      a = b = TargetStop{};
    }
    std::string where = "move " + std::to_string(move) + " (" + name + ")";
    BOOST_REQUIRE_MESSAGE(a.kind == b.kind, where << ": " << a.kind << " counted, " << b.kind << " int3");
    BOOST_REQUIRE_MESSAGE(counted.describe_position() == stopped.describe_position(),
                          where << ": at " << counted.describe_position() << " counted, "
                                << stopped.describe_position() << " int3");
    if (a.kind == TargetStop::Kind::HistoryStart || a.kind == TargetStop::Kind::HistoryEnd) continue;
    Registers ra = counted.registers(0), rb = stopped.registers(0);
    BOOST_REQUIRE_MESSAGE(Registers::differences(ra, rb).empty(),
                          where << " at " << counted.describe_position() << ": " << Registers::differences(ra, rb));
    uint64_t da = loop_state_digest(counted, total, history);
    BOOST_REQUIRE_MESSAGE(da == loop_state_digest(stopped, total, history), where << ": memory differs");
    if (a.kind == TargetStop::Kind::Breakpoint && a.address == tock) {
      BOOST_REQUIRE(both);
      ++landings_on_tock;
    } else if (a.kind == TargetStop::Kind::Breakpoint) {
      BOOST_REQUIRE_EQUAL(a.address, tick);
      uint64_t i = ra.raw().rdi;
      BOOST_REQUIRE_LT(i, static_cast<uint64_t>(kHits));
      BOOST_REQUIRE_MESSAGE(da == at_hit[i], where << ": hit " << i << " is not the forward replay's state");
      ++landings_on_hits;
    }
  }
  BOOST_TEST_MESSAGE(landings_on_hits << " landings on tick, " << landings_on_tock << " on tock, "
                                       << counted.counted_walks() << " counted walks, " << counted.counted_searches()
                                       << " counted search stretches, " << counted.stub_walks() << " stub walks");
  BOOST_TEST(landings_on_hits > (both ? 50 : 100));
  if (both) BOOST_TEST(landings_on_tock > 10);
  // Walks (and, by the kernel, searches) were counted in one and stopped
  // hit by hit in the other.
  if (counter == Counter::Kernel) {
    BOOST_TEST(counted.counted_walks() > 20u);
    BOOST_TEST(counted.counted_searches() > 20u);
  } else {
    BOOST_TEST(counted.stub_walks() > 20u);
    BOOST_TEST(counted.counted_walks() == 0u);
  }
  BOOST_TEST(stopped.counted_walks() == 0u);
  BOOST_TEST(stopped.counted_searches() == 0u);
  BOOST_TEST(stopped.stub_walks() == 0u);
}

}  // namespace

// Where the kernel cannot count breakpoint hits (no perf hardware
// breakpoints for the tracer), the timeline stops at every hit and there is
// nothing to compare: these cases are reported skipped, with the reason.
struct KernelCounts {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    boost::test_tools::assertion_result r(HitCounter::available());
    r.message() << "the kernel does not count breakpoint hits here (perf hardware breakpoints)";
    return r;
  }
};

BOOST_AUTO_TEST_CASE(counted_walks_and_searches_land_where_int3_ones_land,
                     *boost::unit_test::precondition(KernelCounts())) {
  Recording rec;
  compare_moves(rec, false, 20261201, Counter::Kernel);
}

BOOST_AUTO_TEST_CASE(with_two_interleaved_breakpoints_too, *boost::unit_test::precondition(KernelCounts())) {
  Recording rec;
  compare_moves(rec, true, 20261202, Counter::Kernel);
}

// Without the kernel's counts, walks count with a stub (on everywhere but
// with BACKSTEP_COUNTING_STUB=0).
struct CountingStubs {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) const {
    boost::test_tools::assertion_result r(counting_stubs_enabled());
    r.message() << "counting stubs are off (BACKSTEP_COUNTING_STUB=0)";
    return r;
  }
};

BOOST_AUTO_TEST_CASE(stub_walks_land_where_int3_ones_land, *boost::unit_test::precondition(CountingStubs())) {
  Recording rec;
  compare_moves(rec, false, 20261203, Counter::Stub);
}

BOOST_AUTO_TEST_CASE(stub_walks_with_two_interleaved_breakpoints_too,
                     *boost::unit_test::precondition(CountingStubs())) {
  Recording rec;
  compare_moves(rec, true, 20261204, Counter::Stub);
}

// gdb continues from a breakpoint by stepping off it first. Forward hits
// reached that way extend the breakpoint's anchor ("+bp tick xK", not "+bp
// tick x1 +1 steps +bp tick x1 ..."), unless a step stood on tick again
// (then the steps stay in the name); either way seeking back there shows
// the forward replay's state, and a reverse-continue lands on the hit before.
BOOST_AUTO_TEST_CASE(forward_hits_after_a_step_off_extend_the_anchor) {
  Recording rec;
  uint64_t tick = testing::require_symbol(rec.binary(), "tick");
  uint64_t total = testing::require_symbol(rec.binary(), "total");
  uint64_t history = testing::require_symbol(rec.binary(), "history");
  std::vector<uint64_t> at_hit = forward_hit_digests(rec.trace(), tick, total, history, 300);
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(tick, TrapKind::Software);
  BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
  int hit = 0;
  for (int round = 0; round < 40; ++round) {
    // A step off (gdb's), or 200 steps: more than one pass round the loop,
    // so they stand on tick again.
    int steps = round % 4 == 3 ? 200 : 1;
    for (int i = 0; i < steps; ++i) {
      TargetStop s = go(t, RunDirection::Forward, ResumeRequest::How::Step);
      if (s.kind == TargetStop::Kind::Step && t.registers(0).ip() == tick) ++hit;  // stepped onto the next call
    }
    BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
    ++hit;
    BOOST_REQUIRE_LT(hit, static_cast<int>(at_hit.size()));
    BOOST_REQUIRE_MESSAGE(loop_state_digest(t, total, history) == at_hit[static_cast<std::size_t>(hit)],
                          "round " << round << " at " << t.describe_position() << " is not hit " << hit);
    if (steps == 1 && round < 3) {
      // Nothing but step-offs so far: one anchor.
      BOOST_TEST(t.describe_position().find("x" + std::to_string(hit + 1)) != std::string::npos, t.describe_position());
      BOOST_TEST(t.describe_position().find("steps") == std::string::npos, t.describe_position());
    }
  }
  // Seeks back to every few hits, and a reverse-continue from each.
  for (int k = hit; k > 1; k -= 7) {
    int id = t.create_checkpoint();
    BOOST_REQUIRE(go(t, RunDirection::Backward).kind == TargetStop::Kind::Breakpoint);
    BOOST_REQUIRE_MESSAGE(loop_state_digest(t, total, history) == at_hit[static_cast<std::size_t>(k - 1)],
                          "reverse-continue from hit " << k << " landed at " << t.describe_position());
    BOOST_REQUIRE(t.restart_checkpoint(id));
    BOOST_REQUIRE(loop_state_digest(t, total, history) == at_hit[static_cast<std::size_t>(k)]);
    for (int back = 0; back < 7 && k - back > 1; ++back) {
      BOOST_REQUIRE(go(t, RunDirection::Backward).kind == TargetStop::Kind::Breakpoint);
    }
  }
}
