// The cache of the recent trajectory and the lazy position
// (engine/timeline/trajectory.h, timeline_lazy.cc) on a real recording:
// reverse steps answered from the cache land exactly where reverse steps
// that seek every time land (position, registers, XSAVE area, the stack
// lines a debugger reads, and memory read after the replay was brought
// there), in batches of random length, whether the stretch was cached
// while counting the steps back to a breakpoint or filled before a
// position reached by forward range-stepping.
#define BOOST_TEST_MODULE trajectory
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "engine/timeline/replay_timeline.h"
#include "tests/support/recording.h"

using namespace backstep;

namespace backstep {
std::ostream& operator<<(std::ostream& os, TargetStop::Kind k) { return os << to_string(k); }
}  // namespace backstep

namespace {

constexpr long kSpin = 400;  // spin_target.c
constexpr std::size_t kXstateBv = 512;  // offset of XSTATE_BV in the XSAVE area

struct Recording : testing::Recording {
  Recording() : testing::Recording(SPIN_TARGET) { BOOST_REQUIRE(result().completed); }
  uint64_t symbol(const char* name) const {
    uint64_t a = testing::symbol_address(binary(), name);
    BOOST_REQUIRE_MESSAGE(a != 0, name << " not found in " << binary());
    return a;
  }
};

TargetStop go(ReplayTimeline& t, RunDirection dir, ResumeRequest::How how = ResumeRequest::How::Continue,
              uint64_t lo = 0, uint64_t hi = 0) {
  ResumeRequest r;
  r.direction = dir;
  r.how = how;
  r.range_start = lo;
  r.range_end = hi;
  return t.resume(r, nullptr);
}

std::vector<uint8_t> bytes_of(const Registers& regs) {
  user_regs_struct raw = regs.raw();
  std::vector<uint8_t> b(sizeof(raw));
  std::memcpy(b.data(), &raw, sizeof(raw));
  return b;
}

// What gdb asks for between two reverse steps: the registers, and the
// 64-byte stack lines of the frame (served from the cache when lazy).
void expect_same_stop_state(ReplayTimeline& cached, ReplayTimeline& seeking, const std::string& where) {
  BOOST_TEST_CONTEXT(where << " at " << seeking.describe_position()) {
    BOOST_REQUIRE(cached.position() == seeking.position());
    Registers a = cached.registers(0), b = seeking.registers(0);
    BOOST_REQUIRE(bytes_of(a) == bytes_of(b));
    std::vector<uint8_t> xa = cached.xstate(0), xb = seeking.xstate(0);
    // XSTATE_BV (the XSAVE header's first word) says which components the
    // CPU holds in their initial state; for x87 that depends on how the
    // replay got there (a fork, the kernel's restore after a switch), not
    // on the program: two seeks differ the same way. The values gdb sees
    // (the legacy area, the AVX halves) are compared whole.
    for (std::vector<uint8_t>* x : {&xa, &xb}) {
      if (x->size() >= kXstateBv + 8) std::fill(x->begin() + kXstateBv, x->begin() + kXstateBv + 8, 0);
    }
    BOOST_REQUIRE(xa == xb);
    uint64_t sp_line = a.sp() & ~uint64_t{63}, bp_line = a.raw().rbp & ~uint64_t{63};
    BOOST_REQUIRE(cached.read_memory(sp_line, 64) == seeking.read_memory(sp_line, 64));
    BOOST_REQUIRE(cached.read_memory(sp_line + 64, 64) == seeking.read_memory(sp_line + 64, 64));
    BOOST_REQUIRE(cached.read_memory(bp_line, 64) == seeking.read_memory(bp_line, 64));
    // Code (a read-only mapping): the same whatever the replay's position.
    BOOST_REQUIRE(cached.read_memory(a.ip(), 16) == seeking.read_memory(b.ip(), 16));
  }
}

// Memory beyond what the cache holds: the globals and 4 KiB of stack.
// Reading it brings the cached timeline's replay to its position.
void expect_same_memory(ReplayTimeline& cached, ReplayTimeline& seeking, const Recording& rec) {
  uint64_t sp = seeking.registers(0).sp();
  for (const char* name : {"data", "ratio", "sink"}) {
    uint64_t at = rec.symbol(name);
    BOOST_REQUIRE(cached.read_memory(at, 128) == seeking.read_memory(at, 128));
  }
  BOOST_REQUIRE(cached.read_memory(sp - 2048, 4096) == seeking.read_memory(sp - 2048, 4096));
}

// Reverse-steps both timelines in random batches until `stop_when` says
// so (or 12,000 steps), comparing after every step and memory after every
// few batches; then steps forward a few times and compares again.
template <typename Done>
void step_back_in_batches(ReplayTimeline& cached, ReplayTimeline& seeking, const Recording& rec, unsigned seed,
                          Done stop_when) {
  std::mt19937 rng(seed);
  long steps = 0;
  bool done = false;
  for (int batch = 0; !done && steps < 12000; ++batch) {
    long n = 1 + static_cast<long>(rng() % 60);
    for (long i = 0; i < n && !done; ++i, ++steps) {
      TargetStop a = go(cached, RunDirection::Backward, ResumeRequest::How::Step);
      TargetStop b = go(seeking, RunDirection::Backward, ResumeRequest::How::Step);
      BOOST_REQUIRE_EQUAL(a.kind, b.kind);
      BOOST_REQUIRE_EQUAL(a.tid, b.tid);
      BOOST_REQUIRE(cached.siginfo() == seeking.siginfo());
      expect_same_stop_state(cached, seeking, "reverse step " + std::to_string(steps));
      done = stop_when(seeking.registers(0).ip());
    }
    if (batch % 7 == 3) expect_same_memory(cached, seeking, rec);
  }
  BOOST_TEST_MESSAGE(steps << " reverse steps compared");
  BOOST_REQUIRE(done);
  for (int i = 0; i < 5; ++i) {
    TargetStop a = go(cached, RunDirection::Forward, ResumeRequest::How::Step);
    TargetStop b = go(seeking, RunDirection::Forward, ResumeRequest::How::Step);
    BOOST_REQUIRE_EQUAL(a.kind, b.kind);
    expect_same_stop_state(cached, seeking, "forward step " + std::to_string(i));
  }
  expect_same_memory(cached, seeking, rec);
}

}  // namespace

BOOST_AUTO_TEST_CASE(reverse_steps_from_a_breakpoint_land_where_seeks_do) {
  Recording rec;
  uint64_t spin = rec.symbol("spin"), done = rec.symbol("done");
  ReplayTimeline cached(rec.trace()), seeking(rec.trace());
  seeking.set_trajectory_use(ReplayTimeline::TrajectoryUse::Off);
  // Positions compared by name: no approach (timeline_approach.cc), whose
  // names depend on where time stops fall.
  for (ReplayTimeline* t : {&cached, &seeking}) t->set_approach(ReplayTimeline::Approach::Off);
  for (ReplayTimeline* t : {&cached, &seeking}) {
    t->set_breakpoint(done, TrapKind::Software);
    TargetStop s = go(*t, RunDirection::Forward);
    BOOST_REQUIRE_EQUAL(s.kind, TargetStop::Kind::Breakpoint);
    t->remove_breakpoint(done, TrapKind::Software);
  }
  // Back through the calls of mix() and into spin's loop, to its entry.
  step_back_in_batches(cached, seeking, rec, 7, [&](uint64_t pc) { return pc == spin; });
  const Trajectory& cache = cached.trajectory();
  BOOST_TEST_MESSAGE("served " << cache.steps_served << " steps, " << cache.reads_served << " reads");
  BOOST_CHECK_GT(cache.steps_served, 5000u);
  BOOST_CHECK_GT(cache.reads_served, 5000u);
  BOOST_CHECK_EQUAL(seeking.trajectory().steps_served, 0u);
}

BOOST_AUTO_TEST_CASE(reverse_steps_after_a_forward_range_step_land_where_seeks_do) {
  Recording rec;
  uint64_t spin = rec.symbol("spin"), mix = rec.symbol("mix");
  BOOST_REQUIRE(mix > spin && mix - spin < 256);  // spin's code, then mix's
  ReplayTimeline cached(rec.trace()), seeking(rec.trace());
  seeking.set_trajectory_use(ReplayTimeline::TrajectoryUse::Off);
  // Positions compared by name: no approach (timeline_approach.cc), whose
  // names depend on where time stops fall.
  for (ReplayTimeline* t : {&cached, &seeking}) t->set_approach(ReplayTimeline::Approach::Off);
  uint64_t call = 0;
  for (ReplayTimeline* t : {&cached, &seeking}) {
    t->set_breakpoint(spin, TrapKind::Software);
    BOOST_REQUIRE_EQUAL(go(*t, RunDirection::Forward).kind, TargetStop::Kind::Breakpoint);
    t->remove_breakpoint(spin, TrapKind::Software);
    std::vector<uint8_t> ret = t->read_memory(t->registers(0).sp(), 8);
    BOOST_REQUIRE_EQUAL(ret.size(), 8u);
    std::memcpy(&call, ret.data(), 8);
    call -= 5;  // the call instruction before the return address
    // gdb's `next` over a one-line loop: a range step through spin.
    BOOST_REQUIRE_EQUAL(go(*t, RunDirection::Forward, ResumeRequest::How::RangeStep, spin, mix).kind,
                        TargetStop::Kind::Step);
  }
  // Every instruction of the loop back to the call (gdb's reverse-next
  // over it, one step at a time); the stretch was not cached before.
  step_back_in_batches(cached, seeking, rec, 11, [&](uint64_t pc) { return pc == call; });
  const Trajectory& cache = cached.trajectory();
  BOOST_TEST_MESSAGE("served " << cache.steps_served << " steps, " << cache.reads_served << " reads");
  BOOST_CHECK_GT(cache.steps_served, static_cast<uint64_t>(9 * kSpin));
  BOOST_CHECK_GT(cache.reads_served, static_cast<uint64_t>(9 * kSpin));
}
