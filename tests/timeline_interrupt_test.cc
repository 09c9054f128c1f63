// The client's interrupt during a `continue` through a loop without system
// calls, on a real recording (tests/programs/interrupt_target.c): the stop
// is inside the loop and is a position like any other. reverse-stepi goes
// back over the instructions stepped after the State anchor, and past the
// anchor itself (by counting passes from the event before it);
// reverse-continue to a breakpoint in the loop crosses the anchor; a
// checkpoint there comes back to it; forward again gives the same registers
// at every instruction; and the program ends as recorded.
#define BOOST_TEST_MODULE timeline_interrupt
#include <boost/test/unit_test.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/timeline/replay_timeline.h"
#include "tests/support/recording.h"

using namespace backstep;

namespace backstep {
std::ostream& operator<<(std::ostream& os, TargetStop::Kind k) { return os << to_string(k); }
}  // namespace backstep

namespace {

constexpr uint64_t kPasses = 300000;  // interrupt_target.c's PASSES

uint64_t symbol(const std::string& name) {
  uint64_t found = testing::symbol_address(INTERRUPT_TARGET, name);
  BOOST_REQUIRE_MESSAGE(found, "no symbol " << name << " in " << INTERRUPT_TARGET);
  return found;
}

uint64_t read_u64(ReplayTimeline& t, uint64_t addr) {
  std::vector<uint8_t> bytes = t.read_memory(addr, 8);
  BOOST_REQUIRE_EQUAL(bytes.size(), 8u);
  uint64_t v;
  std::memcpy(&v, bytes.data(), 8);
  return v;
}

TargetStop go(ReplayTimeline& t, RunDirection dir, ResumeRequest::How how,
              const std::function<bool()>& interrupted = nullptr) {
  ResumeRequest r;
  r.direction = dir;
  r.how = how;
  return t.resume(r, interrupted);
}

constexpr auto kFwd = RunDirection::Forward;
constexpr auto kBack = RunDirection::Backward;
constexpr auto kStep = ResumeRequest::How::Step;
constexpr auto kContinue = ResumeRequest::How::Continue;

bool at_state_anchor(const ReplayTimeline& t) {
  const Mark& m = t.position();
  return !m.anchors.empty() && m.anchors.back().kind == Anchor::Kind::State && m.steps == 0;
}

void expect_registers(ReplayTimeline& t, const Registers& want, const std::string& where) {
  std::string diff = Registers::differences(want, t.registers(0));
  BOOST_TEST(diff.empty(), where << ": registers differ: " << diff);
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_interrupt_in_a_loop_is_a_position_both_ways) {
  testing::Recording rec(INTERRUPT_TARGET);
  BOOST_REQUIRE(rec.result().completed);
  BOOST_REQUIRE_EQUAL(rec.result().exit_status, 0);
  ReplayTimeline t(rec.trace());
  const uint64_t counter = symbol("counter");
  const uint64_t in_loop = symbol("in_loop");

  // Interrupt once the running program's counter (read from its memory
  // while it runs) shows it is in the loop: a condition, not a time.
  std::optional<std::string> maps = t.recorded_file("/proc/" + std::to_string(t.process_id()) + "/maps");
  BOOST_REQUIRE(maps);
  std::string mem = maps->substr(0, maps->size() - 4) + "mem";
  int fd = open(mem.c_str(), O_RDONLY | O_CLOEXEC);
  BOOST_REQUIRE(fd >= 0);
  auto in_the_loop = [&] {
    uint64_t v = 0;
    return pread(fd, &v, 8, static_cast<off_t>(counter)) == 8 && v >= 100;
  };
  TargetStop stop = go(t, kFwd, kContinue, in_the_loop);
  close(fd);
  BOOST_REQUIRE_EQUAL(stop.kind, TargetStop::Kind::Interrupted);
  const uint64_t c = read_u64(t, counter);
  BOOST_TEST(c >= 100u);
  BOOST_TEST(c < kPasses);
  const Registers at = t.registers(0);
  BOOST_TEST_MESSAGE("interrupted at " << t.describe_position() << ", counter " << c);
  BOOST_REQUIRE(!t.position().anchors.empty());
  BOOST_TEST((t.position().anchors.back().kind == Anchor::Kind::State));

  // Back over the instructions stepped after the anchor, to the anchor.
  std::vector<Registers> trail{at};
  while (!at_state_anchor(t)) {
    stop = go(t, kBack, kStep);
    BOOST_REQUIRE_EQUAL(stop.kind, TargetStop::Kind::Step);
    trail.push_back(t.registers(0));
    BOOST_REQUIRE(trail.size() < 5000);
  }
  BOOST_TEST(trail.size() > 256u);
  const uint64_t c0 = read_u64(t, counter);
  BOOST_TEST(c0 <= c);
  int checkpoint = t.create_checkpoint();

  // reverse-continue to a breakpoint in the loop, from the anchor: the pass
  // before it, and the one before that.
  BOOST_REQUIRE(t.set_breakpoint(in_loop, TrapKind::Software));
  stop = go(t, kBack, kContinue);
  BOOST_REQUIRE_EQUAL(stop.kind, TargetStop::Kind::Breakpoint);
  uint64_t arg = t.registers(0).raw().rdi;
  BOOST_TEST((arg == c0 || arg == c0 + 1), "in_loop(" << arg << ") with the counter at " << c0 << " at the anchor");
  BOOST_TEST(read_u64(t, counter) + 1 == arg);
  stop = go(t, kBack, kContinue);
  BOOST_REQUIRE_EQUAL(stop.kind, TargetStop::Kind::Breakpoint);
  BOOST_TEST(t.registers(0).raw().rdi + 1 == arg);
  BOOST_REQUIRE(t.remove_breakpoint(in_loop, TrapKind::Software));

  // The checkpoint comes back to the anchor; before it, the search from the
  // event before finds the instruction.
  BOOST_REQUIRE(t.restart_checkpoint(checkpoint));
  BOOST_TEST(at_state_anchor(t));
  expect_registers(t, trail.back(), "checkpoint at the anchor");
  stop = go(t, kBack, kStep);
  BOOST_REQUIRE_EQUAL(stop.kind, TargetStop::Kind::Step);
  BOOST_TEST(!at_state_anchor(t));
  BOOST_TEST_MESSAGE("before the anchor: " << t.describe_position());

  // Forward again over all of it.
  for (std::size_t i = trail.size(); i-- > 0;) {
    stop = go(t, kFwd, kStep);
    BOOST_REQUIRE_EQUAL(stop.kind, TargetStop::Kind::Step);
    expect_registers(t, trail[i], "stepping forward, " + std::to_string(i) + " instructions before the interrupt");
  }
  BOOST_TEST(read_u64(t, counter) == c);

  // On to the end, as recorded.
  stop = go(t, kFwd, kContinue);
  BOOST_TEST(stop.kind == TargetStop::Kind::HistoryEnd);
  BOOST_TEST(read_u64(t, counter) == kPasses);
  stop = go(t, kFwd, kContinue);
  BOOST_REQUIRE_EQUAL(stop.kind, TargetStop::Kind::Exited);
  BOOST_TEST(stop.exit_code == 0);
}
