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

#include <chrono>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/core/time_sampler.h"
#include "engine/replay/replay_session.h"
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

// A client that interrupts a `continue` again and again (an IDE polling,
// a user's ^C) while two threads compute across counted hand-overs
// (tests/programs/crunch_target.c): wherever each interrupt falls (in the
// loop, inside the counting stub that finds the recorded position, right at
// the instruction it counts), every hit of a breakpoint in the loop is
// still reported, in order, and the replay reaches each recorded position
// and the end. Two bugs lost hits or diverged here: a stop at the counted
// instruction before the jump into the stub was taken for an arrival
// already counted (the position's count drifted by one per such stop), and
// a breakpoint hit read after leaving the stub (whose single steps leave
// DR6's step bit, and whose injected munmap replaces the siginfo) was taken
// for a step of replay's own and run past.
BOOST_AUTO_TEST_CASE(interrupts_across_counted_hand_overs_keep_every_hit) {
  testing::Recording rec(CRUNCH_TARGET);
  BOOST_REQUIRE(rec.result().completed);
  BOOST_REQUIRE_EQUAL(rec.result().exit_status, 0);
  BOOST_TEST_MESSAGE(rec.result().counted_positions << " counted positions");
  BOOST_REQUIRE_GT(rec.result().counted_positions, 0u);
  ReplayTimeline t(rec.trace());
  const uint64_t mark = testing::symbol_address(CRUNCH_TARGET, "mark");
  const uint64_t marks = testing::symbol_address(CRUNCH_TARGET, "marks");
  BOOST_REQUIRE(mark && marks);
  BOOST_REQUIRE(t.set_breakpoint(mark, TrapKind::Software));

  // Asks for a stop whenever a millisecond has passed since the last one
  // (the timeline asks every 20 ms while the program runs).
  using Clock = std::chrono::steady_clock;
  Clock::time_point last = Clock::now();
  auto interrupt = [&] { return Clock::now() - last >= std::chrono::milliseconds(1); };
  uint64_t hits = 0, interrupts = 0;
  for (;;) {
    TargetStop stop = go(t, kFwd, kContinue, interrupt);
    last = Clock::now();
    if (stop.kind == TargetStop::Kind::Interrupted) {
      ++interrupts;
      continue;
    }
    if (stop.kind != TargetStop::Kind::Breakpoint) {
      BOOST_TEST(stop.kind == TargetStop::Kind::HistoryEnd);
      break;
    }
    // The hit before this one has incremented its thread's count; this
    // one's has not run yet.
    const uint64_t done = read_u64(t, marks) + read_u64(t, marks + 8);
    BOOST_TEST(done == hits, "hit " << hits + 1 << " with " << done << " calls of mark() done before it");
    ++hits;
    BOOST_REQUIRE(hits <= 128);
  }
  BOOST_TEST_MESSAGE(hits << " hits, " << interrupts << " interrupts");
  BOOST_TEST(interrupts > 0u);
  BOOST_TEST(hits == 128u);  // crunch_target.c: 2 threads x PER_THREAD
  BOOST_TEST(read_u64(t, marks) + read_u64(t, marks + 8) == 128u);
  TargetStop end = go(t, kFwd, kContinue);
  BOOST_REQUIRE_EQUAL(end.kind, TargetStop::Kind::Exited);
  BOOST_TEST(end.exit_code == 0);
}

// The same at the replay session's own level, where a forward continue's
// copies stop the program (stretch_copy.cc): a stop asked for every
// millisecond of the run, hundreds of them inside the runs to the counted
// positions.
BOOST_AUTO_TEST_CASE(a_stop_every_millisecond_keeps_the_counted_positions_exact) {
  testing::Recording rec(CRUNCH_TARGET);
  BOOST_REQUIRE(rec.result().completed);
  BOOST_REQUIRE_GT(rec.result().counted_positions, 0u);
  const uint64_t mark = testing::symbol_address(CRUNCH_TARGET, "mark");
  const uint64_t marks = testing::symbol_address(CRUNCH_TARGET, "marks");
  BOOST_REQUIRE(mark && marks);
  ReplayOptions quiet;
  quiet.echo_stdio = false;
  ReplaySession s(rec.trace(), quiet);
  auto done = [&] {
    std::vector<uint8_t> b = s.read_memory(marks, 16);
    BOOST_REQUIRE_EQUAL(b.size(), 16u);
    uint64_t v[2];
    std::memcpy(v, b.data(), 16);
    return v[0] + v[1];
  };
  uint64_t hits = 0, interrupts = 0;
  for (;;) {
    ReplayStop r = s.resume({.single_step = false,
                             .stop_after_event = false,
                             .stop_before = nullptr,
                             .interrupted = [] { return true; },
                             .poll_period = std::chrono::milliseconds(1),
                             .traps = Traps{{mark}, {}}});
    if (r.kind == ReplayStop::Kind::Interrupted) {
      ++interrupts;
      continue;
    }
    if (r.kind != ReplayStop::Kind::Breakpoint) {
      BOOST_TEST((r.kind == ReplayStop::Kind::ProgramEnd));
      break;
    }
    BOOST_REQUIRE_EQUAL(r.address, mark);
    BOOST_TEST(done() == hits, "hit " << hits + 1 << " with " << done() << " calls of mark() done before it");
    ++hits;
    BOOST_REQUIRE(hits <= 128);
  }
  BOOST_TEST_MESSAGE(hits << " hits, " << interrupts << " interrupts");
  BOOST_TEST(interrupts > 100u);
  BOOST_TEST(hits == 128u);
}

// The approach (engine/timeline/timeline_approach.cc) times the stretch to
// a hit by the CPU time of the thread that reaches it. A run clock started
// for one thread measures that thread only, and a time sample cuts only
// it: across a computing slice of another thread (up to a counted
// hand-over) the clock reads nothing and the sample never stops the run.
BOOST_AUTO_TEST_CASE(the_run_clock_measures_only_the_thread_it_names) {
  if (!TimeSampler::available()) {
    BOOST_TEST_MESSAGE("no task-clock samples here: nothing to measure");
    return;
  }
  testing::Recording rec(CRUNCH_TARGET);
  BOOST_REQUIRE(rec.result().completed);
  BOOST_REQUIRE_GT(rec.result().counted_positions, 0u);
  ReplayOptions quiet;
  quiet.echo_stdio = false;
  ReplaySession s(rec.trace(), quiet);
  // On to the boundary before a counted position: the thread that runs
  // there computes for tens of milliseconds before it is handed over.
  for (;;) {
    const trace::Event* next = s.peek_next();
    BOOST_REQUIRE(next);
    if (next->kind == trace::EventKind::Position && next->position->counted()) break;
    BOOST_REQUIRE((s.resume({.stop_after_event = true}).kind == ReplayStop::Kind::EventReplayed));
  }
  const uint32_t runs = s.next_thread();
  uint32_t other = 0;
  for (uint32_t tid : s.thread_ids()) {
    if (tid != runs) other = tid;
  }
  BOOST_REQUIRE(other != 0);
  constexpr uint64_t kSample = 1'000'000;  // 1 ms of CPU time

  std::unique_ptr<ReplaySession> elsewhere = s.clone();
  elsewhere->set_echo(false);
  BOOST_REQUIRE(elsewhere->start_run_clock(other));
  BOOST_REQUIRE(elsewhere->set_time_sample(kSample));
  ReplayStop r = elsewhere->resume({.stop_after_event = true});
  BOOST_TEST((r.kind == ReplayStop::Kind::EventReplayed), "the run stopped, kind " << static_cast<int>(r.kind));
  BOOST_TEST(elsewhere->run_time_ns() == 0u);

  std::unique_ptr<ReplaySession> here = s.clone();
  here->set_echo(false);
  BOOST_REQUIRE(here->start_run_clock(runs));
  BOOST_REQUIRE(here->set_time_sample(kSample));
  r = here->resume({.stop_after_event = true});
  BOOST_TEST((r.kind == ReplayStop::Kind::Interrupted), "the run did not stop, kind " << static_cast<int>(r.kind));
  BOOST_TEST(here->run_time_ns() >= kSample);
  BOOST_TEST(here->stopped_thread() == runs);
}
