// A reverse-stepi from a breakpoint after a long stretch without events
// (tests/programs/stretch_target.c: ~3 million instructions) approaches the
// hit at the program's own speed (engine/timeline/timeline_approach.cc)
// instead of single-stepping the stretch, and must land exactly where the
// instructions before the hit are: a reference timeline that does not
// approach finds the loop's last pass by a backward search for a
// breakpoint in its body, steps forward from there to the hit, and then
// both go back step by step in lockstep, into the passes before, with the
// registers and the loop's stack frame compared at every landing. Then a
// reverse-continue from a position the approach named, a forward continue
// and the approach again from a fresh timeline with few checkpoints.
#define BOOST_TEST_MODULE approach
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

#include "engine/core/hit_counter.h"
#include "engine/core/time_sampler.h"
#include "engine/timeline/replay_timeline.h"
#include "tests/support/recording.h"
#include "tests/support/timeline_steps.h"

using namespace backstep;
using testing::go;

namespace backstep {
std::ostream& operator<<(std::ostream& os, TargetStop::Kind k) { return os << to_string(k); }
}  // namespace backstep

namespace {

constexpr long kPasses = 400000;  // stretch_target.c's `passes`

struct State {
  Registers regs;
  std::vector<uint8_t> frame;  // around rbp: the loop's s and i at -O0
};

State state(ReplayTimeline& t) {
  Registers r = t.registers(0);
  return State{r, t.read_memory(r.raw().rbp - 64, 128)};
}

void require_same(const State& a, const State& b, const std::string& where) {
  BOOST_REQUIRE_MESSAGE(Registers::differences(a.regs, b.regs).empty(),
                        where << ": " << Registers::differences(a.regs, b.regs));
  BOOST_REQUIRE_MESSAGE(a.frame == b.frame, where << ": the stack frame differs");
}

// Task-clock stops, and passes counted in the kernel or by a counting stub
// (where debug registers never fire, stubs alone): without them the
// timeline single-steps as before, which the other timeline tests cover.
struct kernel_can_approach {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) {
    return (HitCounter::enabled() || counting_stubs_enabled()) && TimeSampler::available();
  }
};

// A forward continue leaves copies in its stretch only where the kernel
// counts (replay_timeline.cc, continue_forward).
struct forward_copies_made {
  boost::test_tools::assertion_result operator()(boost::unit_test::test_unit_id) {
    return HitCounter::enabled() && TimeSampler::available();
  }
};

struct Recording : testing::Recording {
  Recording() : testing::Recording(STRETCH_TARGET) { BOOST_REQUIRE(result().completed); }
};

}  // namespace

BOOST_AUTO_TEST_CASE(reverse_steps_into_a_long_stretch_land_on_its_last_instructions,
                     *boost::unit_test::precondition(kernel_can_approach())) {
  Recording rec;
  uint64_t after = testing::require_symbol(rec.binary(), "after");
  uint64_t pass = testing::require_symbol(rec.binary(), "stretch_pass");

  // The reference: to after(), back to the last pass by a search, forward
  // by single steps to after() again.
  ReplayTimeline ref(rec.trace());
  ref.set_approach(ReplayTimeline::Approach::Off);
  BOOST_REQUIRE(ref.set_breakpoint(after, TrapKind::Software));
  BOOST_REQUIRE_EQUAL(go(ref, RunDirection::Forward).kind, TargetStop::Kind::Breakpoint);
  // Alone, so that the kernel counts its hits (two breakpoints hit in one
  // stretch are searched hit by hit).
  BOOST_REQUIRE(ref.remove_breakpoint(after, TrapKind::Software));
  BOOST_REQUIRE(ref.set_breakpoint(pass, TrapKind::Software));
  TargetStop last_pass = go(ref, RunDirection::Backward);
  BOOST_REQUIRE_EQUAL(last_pass.kind, TargetStop::Kind::Breakpoint);
  BOOST_REQUIRE_EQUAL(last_pass.address, pass);
  State at_last_pass = state(ref);
  BOOST_REQUIRE(ref.remove_breakpoint(pass, TrapKind::Software));
  BOOST_REQUIRE(ref.set_breakpoint(after, TrapKind::Software));
  int steps_to_after = 0;
  while (ref.registers(0).ip() != after) {
    BOOST_REQUIRE_EQUAL(go(ref, RunDirection::Forward, ResumeRequest::How::Step).kind, TargetStop::Kind::Step);
    BOOST_REQUIRE_LT(++steps_to_after, 200);
  }

  ReplayTimeline t(rec.trace());
  BOOST_REQUIRE(t.set_breakpoint(after, TrapKind::Software));
  BOOST_REQUIRE_EQUAL(go(t, RunDirection::Forward).kind, TargetStop::Kind::Breakpoint);
  require_same(state(t), state(ref), "at after()");
  // Back to the last pass and 40 instructions beyond, in lockstep.
  const int back = steps_to_after + 40;
  for (int k = 1; k <= back; ++k) {
    std::string where = "reverse-stepi " + std::to_string(k) + " (at " + t.describe_position() + ")";
    BOOST_REQUIRE_EQUAL(go(t, RunDirection::Backward, ResumeRequest::How::Step).kind, TargetStop::Kind::Step);
    BOOST_REQUIRE_EQUAL(go(ref, RunDirection::Backward, ResumeRequest::How::Step).kind, TargetStop::Kind::Step);
    require_same(state(t), state(ref), where);
    if (k == steps_to_after) require_same(state(t), at_last_pass, where + ", the last pass");
  }
  // At least one approach: how many got closer depends on where the task
  // clock's stops fell (a second one under load, when the first landed so
  // near the hit that the 40 steps beyond the last pass needed another).
  // The lockstep states above are what must not vary.
  BOOST_REQUIRE_GE(t.approaches(), 1u);
  BOOST_TEST_MESSAGE("approached " << t.approaches() << " time(s): " << t.describe_position());

  // From a position the approach named: back to tick()'s last hits by
  // searches (the one across the approach's State anchor stops at each
  // hit of tick), forward to after() again.
  uint64_t tick = testing::require_symbol(rec.binary(), "tick");
  for (ReplayTimeline* x : {&t, &ref}) BOOST_REQUIRE(x->set_breakpoint(tick, TrapKind::Software));
  for (int k = 0; k < 3; ++k) {
    TargetStop a = go(t, RunDirection::Backward), b = go(ref, RunDirection::Backward);
    BOOST_REQUIRE_EQUAL(a.kind, TargetStop::Kind::Breakpoint);
    BOOST_REQUIRE_EQUAL(a.address, tick);
    BOOST_REQUIRE_EQUAL(b.address, tick);
    require_same(state(t), state(ref), "reverse-continue " + std::to_string(k));
    BOOST_REQUIRE_EQUAL(t.registers(0).raw().rdi, static_cast<uint64_t>((kPasses - 1) / 65536 - k) * 65536);
  }
  for (ReplayTimeline* x : {&t, &ref}) BOOST_REQUIRE(x->remove_breakpoint(tick, TrapKind::Software));
  TargetStop fa = go(t, RunDirection::Forward), fb = go(ref, RunDirection::Forward);
  BOOST_REQUIRE_EQUAL(fa.kind, TargetStop::Kind::Breakpoint);
  BOOST_REQUIRE_EQUAL(fa.address, after);
  BOOST_REQUIRE_EQUAL(fb.address, after);
  require_same(state(t), state(ref), "continue to after()");

  // Memory read where the program keeps its globals, at the position
  // before the hit: `passes` as recorded.
  BOOST_REQUIRE_EQUAL(go(t, RunDirection::Backward, ResumeRequest::How::Step).kind, TargetStop::Kind::Step);
  uint64_t passes = testing::require_symbol(rec.binary(), "passes");
  BOOST_REQUIRE_EQUAL(testing::read_value<long>(t, passes), kPasses);
}

BOOST_AUTO_TEST_CASE(an_approach_with_few_checkpoints_keeps_within_them,
                     *boost::unit_test::precondition(kernel_can_approach())) {
  Recording rec;
  uint64_t after = testing::require_symbol(rec.binary(), "after");
  ReplayTimeline ref(rec.trace()), t(rec.trace());
  ref.set_approach(ReplayTimeline::Approach::Off);
  t.set_checkpoint_limit(2);
  for (ReplayTimeline* x : {&t, &ref}) {
    BOOST_REQUIRE(x->set_breakpoint(after, TrapKind::Software));
    BOOST_REQUIRE_EQUAL(go(*x, RunDirection::Forward).kind, TargetStop::Kind::Breakpoint);
  }
  // The reference's way back: the instruction before after()'s hit, named
  // by the steps from the last pass.
  uint64_t pass = testing::require_symbol(rec.binary(), "stretch_pass");
  BOOST_REQUIRE(ref.remove_breakpoint(after, TrapKind::Software));
  BOOST_REQUIRE(ref.set_breakpoint(pass, TrapKind::Software));
  BOOST_REQUIRE_EQUAL(go(ref, RunDirection::Backward).kind, TargetStop::Kind::Breakpoint);
  BOOST_REQUIRE(ref.remove_breakpoint(pass, TrapKind::Software));
  BOOST_REQUIRE(ref.set_breakpoint(after, TrapKind::Software));
  std::vector<State> forward{state(ref)};
  while (ref.registers(0).ip() != after) {
    BOOST_REQUIRE_EQUAL(go(ref, RunDirection::Forward, ResumeRequest::How::Step).kind, TargetStop::Kind::Step);
    forward.push_back(state(ref));
  }
  for (int k = 1; k < static_cast<int>(forward.size()); ++k) {
    BOOST_REQUIRE_EQUAL(go(t, RunDirection::Backward, ResumeRequest::How::Step).kind, TargetStop::Kind::Step);
    require_same(state(t), forward[forward.size() - 1 - k], "reverse-stepi " + std::to_string(k));
    BOOST_REQUIRE_LE(t.checkpoint_count(), 2u + 1u + 8u);  // the bound, the start, held states
  }
  BOOST_REQUIRE_GE(t.approaches(), 1u);  // as above: one, or more where the clock's stops fell near the hit
  // Forward again over the same instructions, and a step back from there.
  BOOST_REQUIRE_EQUAL(go(t, RunDirection::Forward).kind, TargetStop::Kind::Breakpoint);
  BOOST_REQUIRE_EQUAL(go(t, RunDirection::Backward, ResumeRequest::How::Step).kind, TargetStop::Kind::Step);
  require_same(state(t), forward[forward.size() - 2], "reverse-stepi after continue");
}

// A forward continue through a longer stretch (~150 million instructions,
// 40-80 ms here) leaves a copy on its way (engine/timeline/
// stretch_copy.cc), and the first reverse-stepi back from the hit
// approaches from that copy instead of the stretch's start. (A stretch of
// 10-20 ms once ran whole under the CI's load before the replay, which
// shares the program's CPU, could stop it for a copy.) Both must land
// on the same instructions, step after step, and agree after a
// reverse-continue from there and a continue back.
BOOST_AUTO_TEST_CASE(the_approach_from_a_forward_runs_copy_lands_as_from_the_start,
                     *boost::unit_test::precondition(forward_copies_made())) {
  constexpr long kLongPasses = 15'000'000;
  testing::Recording rec(STRETCH_TARGET, {std::to_string(kLongPasses)});
  BOOST_REQUIRE(rec.result().completed);
  uint64_t after = testing::require_symbol(rec.binary(), "after");
  uint64_t tick = testing::require_symbol(rec.binary(), "tick");
  ReplayTimeline ref(rec.trace()), t(rec.trace());
  ref.set_stretch_copies(ReplayTimeline::StretchCopies::Off);
  for (ReplayTimeline* x : {&t, &ref}) {
    BOOST_REQUIRE(x->set_breakpoint(after, TrapKind::Software));
    BOOST_REQUIRE_EQUAL(go(*x, RunDirection::Forward).kind, TargetStop::Kind::Breakpoint);
  }
  require_same(state(t), state(ref), "at after()");
  for (int k = 1; k <= 300; ++k) {
    std::string where = "reverse-stepi " + std::to_string(k) + " (at " + t.describe_position() + ")";
    BOOST_REQUIRE_EQUAL(go(t, RunDirection::Backward, ResumeRequest::How::Step).kind, TargetStop::Kind::Step);
    BOOST_REQUIRE_EQUAL(go(ref, RunDirection::Backward, ResumeRequest::How::Step).kind, TargetStop::Kind::Step);
    require_same(state(t), state(ref), where);
  }
  BOOST_TEST_MESSAGE("from the copy: " << t.describe_position() << "; from the start: " << ref.describe_position());
  BOOST_REQUIRE_EQUAL(t.stretch_copies_used(), 1u);
  BOOST_REQUIRE_EQUAL(ref.stretch_copies_used(), 0u);
  BOOST_REQUIRE_GE(ref.approaches(), 1u);

  // Back to tick()'s last hit, and forward to after() again.
  for (ReplayTimeline* x : {&t, &ref}) BOOST_REQUIRE(x->set_breakpoint(tick, TrapKind::Software));
  TargetStop a = go(t, RunDirection::Backward), b = go(ref, RunDirection::Backward);
  BOOST_REQUIRE_EQUAL(a.kind, TargetStop::Kind::Breakpoint);
  BOOST_REQUIRE_EQUAL(a.address, tick);
  BOOST_REQUIRE_EQUAL(b.address, tick);
  require_same(state(t), state(ref), "reverse-continue to tick()");
  BOOST_REQUIRE_EQUAL(t.registers(0).raw().rdi, static_cast<uint64_t>((kLongPasses - 1) / 65536) * 65536);
  for (ReplayTimeline* x : {&t, &ref}) BOOST_REQUIRE(x->remove_breakpoint(tick, TrapKind::Software));
  TargetStop fa = go(t, RunDirection::Forward), fb = go(ref, RunDirection::Forward);
  BOOST_REQUIRE_EQUAL(fa.address, after);
  BOOST_REQUIRE_EQUAL(fb.address, after);
  require_same(state(t), state(ref), "continue to after()");
  uint64_t passes = testing::require_symbol(rec.binary(), "passes");
  BOOST_REQUIRE_EQUAL(testing::read_value<long>(t, passes), kLongPasses);
}
