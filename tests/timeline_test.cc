// The timeline on a real recording: breakpoints and watchpoints forwards
// and backwards, stepping both ways, the ends of history, checkpoints.
#define BOOST_TEST_MODULE timeline
#include <boost/test/unit_test.hpp>


#include <cstring>
#include <filesystem>
#include <string>

#include "engine/timeline/replay_timeline.h"
#include "tests/support/recording.h"

using namespace backstep;

namespace backstep {
std::ostream& operator<<(std::ostream& os, TargetStop::Kind k) { return os << to_string(k); }
}  // namespace backstep

namespace {

uint64_t symbol_address(const std::string& path, const std::string& name) {
  uint64_t found = testing::symbol_address(path, name);
  BOOST_REQUIRE_MESSAGE(found, "no symbol " << name << " in " << path);
  return found;
}

// The timeline target, recorded; it exits with 55.
struct Recording : testing::Recording {
  Recording() : testing::Recording(TIMELINE_TARGET) {
    BOOST_REQUIRE(result().completed);
    BOOST_REQUIRE_EQUAL(result().exit_status, 55);
  }
};

int32_t read_int(ReplayTimeline& t, uint64_t addr) {
  std::vector<uint8_t> bytes = t.read_memory(addr, 4);
  BOOST_REQUIRE_EQUAL(bytes.size(), 4u);
  int32_t v;
  std::memcpy(&v, bytes.data(), 4);
  return v;
}

TargetStop go(ReplayTimeline& t, RunDirection dir, ResumeRequest::How how = ResumeRequest::How::Continue) {
  ResumeRequest r;
  r.direction = dir;
  r.how = how;
  return t.resume(r, nullptr);
}

constexpr auto kFwd = RunDirection::Forward;
constexpr auto kBack = RunDirection::Backward;

}  // namespace

BOOST_AUTO_TEST_CASE(breakpoint_hits_forwards_and_backwards) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  uint64_t counter = symbol_address(rec.binary(), "counter");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);

  std::vector<int32_t> seen;
  for (int i = 0; i < 5; ++i) {
    TargetStop s = go(t, kFwd);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Breakpoint);
    BOOST_TEST(s.address == bump);
    BOOST_TEST(t.registers(0).ip() == bump);
    seen.push_back(read_int(t, counter));
  }
  BOOST_TEST(seen == (std::vector<int32_t>{0, 1, 3, 6, 10}), boost::test_tools::per_element());
  Registers at_fifth = t.registers(0);

  // Backwards through the earlier hits, down to the first.
  for (int expected : {6, 3, 1, 0}) {
    TargetStop s = go(t, kBack);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Breakpoint);
    BOOST_TEST(t.registers(0).ip() == bump);
    BOOST_TEST(read_int(t, counter) == expected);
  }
  BOOST_TEST(go(t, kBack).kind == TargetStop::Kind::HistoryStart);
  BOOST_TEST(go(t, kBack).kind == TargetStop::Kind::HistoryStart);

  // Forward again lands on exactly the same states.
  for (int expected : {0, 1, 3, 6, 10}) {
    BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
    BOOST_TEST(read_int(t, counter) == expected);
  }
  BOOST_TEST(Registers::differences(at_fifth, t.registers(0)).empty());

  // Run off the end, then back.
  t.remove_breakpoint(bump, TrapKind::Software);
  BOOST_TEST(go(t, kFwd).kind == TargetStop::Kind::HistoryEnd);
  t.set_breakpoint(bump, TrapKind::Software);
  BOOST_REQUIRE(go(t, kBack).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, counter) == 45);  // the tenth call, before it adds 10
  t.remove_breakpoint(bump, TrapKind::Software);
  BOOST_TEST(go(t, kFwd).kind == TargetStop::Kind::HistoryEnd);
  TargetStop exit = go(t, kFwd);
  BOOST_REQUIRE(exit.kind == TargetStop::Kind::Exited);
  BOOST_TEST(exit.exit_code == 55);
}

BOOST_AUTO_TEST_CASE(stepping_backwards_retraces_forward_steps) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);  // second call
  t.remove_breakpoint(bump, TrapKind::Software);

  std::vector<Registers> states{t.registers(0)};
  for (int i = 0; i < 12; ++i) {
    BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    states.push_back(t.registers(0));
  }
  for (int i = 11; i >= 0; --i) {
    BOOST_REQUIRE(go(t, kBack, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    BOOST_TEST(Registers::differences(states[static_cast<size_t>(i)], t.registers(0)).empty(),
               "after reverse step to " << i << ": " << Registers::differences(states[static_cast<size_t>(i)], t.registers(0)));
  }
  // And further back than where we started stepping: across the first
  // call's return and into main's loop, then forward to the same place.
  std::vector<Registers> back;
  for (int i = 0; i < 30; ++i) {
    BOOST_REQUIRE(go(t, kBack, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    back.push_back(t.registers(0));
  }
  for (int i = 28; i >= 0; --i) {
    BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    BOOST_TEST(Registers::differences(back[static_cast<size_t>(i)], t.registers(0)).empty());
  }
  BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
  BOOST_TEST(Registers::differences(states[0], t.registers(0)).empty());
}

BOOST_AUTO_TEST_CASE(watchpoint_old_and_new_values_both_ways) {
  Recording rec;
  uint64_t counter = symbol_address(rec.binary(), "counter");
  ReplayTimeline t(rec.trace());
  BOOST_REQUIRE(t.set_watchpoint(counter, 4, WatchType::Write));
  std::vector<int32_t> forward;
  for (int i = 0; i < 4; ++i) {
    TargetStop s = go(t, kFwd);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST(s.address == counter);
    forward.push_back(read_int(t, counter));
  }
  BOOST_TEST(forward == (std::vector<int32_t>{1, 3, 6, 10}), boost::test_tools::per_element());
  // Backwards, each stop is before the write: the value it is about to change.
  for (int expected : {6, 3, 1, 0}) {
    TargetStop s = go(t, kBack);
    BOOST_REQUIRE(s.kind == TargetStop::Kind::Watchpoint);
    BOOST_TEST(read_int(t, counter) == expected);
  }
  BOOST_TEST(go(t, kBack).kind == TargetStop::Kind::HistoryStart);
}

BOOST_AUTO_TEST_CASE(checkpoints_and_restart) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  uint64_t counter = symbol_address(rec.binary(), "counter");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);
  for (int i = 0; i < 3; ++i) BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  int id = t.create_checkpoint();
  BOOST_TEST(t.checkpoints().size() == 1u);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, counter) == 6);
  BOOST_REQUIRE(t.restart_checkpoint(id));
  BOOST_TEST(read_int(t, counter) == 3);
  t.restart(std::nullopt);
  BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(read_int(t, counter) == 0);
  BOOST_TEST(t.delete_checkpoint(id));
  BOOST_TEST(!t.delete_checkpoint(id));
}

BOOST_AUTO_TEST_CASE(a_thousand_reverse_steps_are_deterministic) {
  Recording rec;
  uint64_t bump = symbol_address(rec.binary(), "bump");
  ReplayTimeline t(rec.trace());
  t.set_breakpoint(bump, TrapKind::Software);
  for (int i = 0; i < 8; ++i) BOOST_REQUIRE(go(t, kFwd).kind == TargetStop::Kind::Breakpoint);
  t.remove_breakpoint(bump, TrapKind::Software);
  Registers start = t.registers(0);

  // 1000 instructions back (across system calls and earlier calls of bump),
  // then forward again: every state must be the same both ways.
  std::vector<Registers> back;
  for (int i = 0; i < 1000; ++i) {
    BOOST_REQUIRE(go(t, kBack, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    back.push_back(t.registers(0));
  }
  for (int i = 998; i >= 0; --i) {
    BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
    BOOST_REQUIRE_MESSAGE(Registers::differences(back[static_cast<size_t>(i)], t.registers(0)).empty(),
                          "state " << i << ": " << Registers::differences(back[static_cast<size_t>(i)], t.registers(0)));
  }
  BOOST_REQUIRE(go(t, kFwd, ResumeRequest::How::Step).kind == TargetStop::Kind::Step);
  BOOST_TEST(Registers::differences(start, t.registers(0)).empty());

  // And back once more, to the same state 1000 steps back.
  for (int i = 0; i < 1000; ++i) go(t, kBack, ResumeRequest::How::Step);
  BOOST_TEST(Registers::differences(back.back(), t.registers(0)).empty());
}
