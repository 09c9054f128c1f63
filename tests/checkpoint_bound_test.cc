// The bound on automatic checkpoints (engine/timeline/checkpoint_bound.cc)
// on a real recording: many reverse-continues across loops without system
// calls never leave more live checkpoint processes than the limit allows,
// and every landing is exactly the state a fresh replay reaches there.
#define BOOST_TEST_MODULE checkpoint_bound
#include <boost/test/unit_test.hpp>

#include <dirent.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "engine/timeline/replay_timeline.h"
#include "tests/support/loop_target_states.h"
#include "tests/support/recording.h"

using namespace backstep;

namespace backstep {
std::ostream& operator<<(std::ostream& os, TargetStop::Kind k) { return os << to_string(k); }
}  // namespace backstep

namespace {

constexpr int kHits = 900;  // tick() calls in loop_target.c

struct Recording : testing::Recording {
  Recording() : testing::Recording(LOOP_TARGET) {
    BOOST_REQUIRE(result().completed);
    BOOST_REQUIRE_EQUAL(result().exit_status, static_cast<int>((kHits * (kHits - 1) / 2) % 200));
  }
};

TargetStop go(ReplayTimeline& t, RunDirection dir) {
  ResumeRequest r;
  r.direction = dir;
  return t.resume(r, nullptr);
}

// This process's children, counted by the kernel: the replay and every
// checkpoint are forks of the replayed tree, each a child of ours.
std::size_t live_children() {
  std::size_t n = 0;
  DIR* tasks = opendir("/proc/self/task");
  BOOST_REQUIRE(tasks);
  while (dirent* d = readdir(tasks)) {
    if (d->d_name[0] == '.') continue;
    std::ifstream in(std::string("/proc/self/task/") + d->d_name + "/children");
    for (long pid; in >> pid;) ++n;
  }
  closedir(tasks);
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(reverse_continues_stay_within_the_limit_and_land_exactly) {
  Recording rec;
  uint64_t tick = testing::symbol_address(rec.binary(), "tick");
  uint64_t total = testing::symbol_address(rec.binary(), "total");
  uint64_t history = testing::symbol_address(rec.binary(), "history");
  BOOST_REQUIRE(tick && total && history);

  // A fresh replay, forwards: the state at each hit.
  std::vector<uint64_t> expected = testing::forward_hit_digests(rec.trace(), tick, total, history, kHits);
  BOOST_REQUIRE_EQUAL(live_children(), 0u);  // the fresh replay's all reaped

  constexpr std::size_t kLimit = 4;
  ReplayTimeline t(rec.trace());
  t.set_checkpoint_limit(kLimit);
  BOOST_TEST(go(t, RunDirection::Forward).kind == TargetStop::Kind::HistoryEnd);
  t.set_breakpoint(tick, TrapKind::Software);
  // Backwards over every hit: each reverse-continue searches the interval
  // and walks to its hit, leaving checkpoints on the way.
  std::size_t most_children = 0;
  for (int k = kHits - 1; k >= 0; --k) {
    BOOST_REQUIRE(go(t, RunDirection::Backward).kind == TargetStop::Kind::Breakpoint);
    BOOST_REQUIRE_MESSAGE(testing::loop_state_digest(t, total, history) == expected[static_cast<std::size_t>(k)],
                          "hit " << k << " at " << t.describe_position() << " is not the fresh replay's state");
    CheckpointStats s = t.checkpoint_stats();
    BOOST_REQUIRE_LE(s.automatic, kLimit);
    // The live replay, the start of history and the automatic ones.
    std::size_t children = live_children();
    most_children = std::max(most_children, children);
    BOOST_REQUIRE_LE(children, kLimit + 2);
  }
  BOOST_TEST(go(t, RunDirection::Backward).kind == TargetStop::Kind::HistoryStart);
  CheckpointStats s = t.checkpoint_stats();
  BOOST_TEST_MESSAGE("most children " << most_children << ", " << s.evicted << " evicted, peak " << s.peak);
  BOOST_TEST(s.peak <= kLimit);
  BOOST_TEST(s.evicted > 0u);  // the bound was needed

  // Forwards again over the same hits: the same states.
  for (int k = 0; k < kHits; k += 97) {
    t.restart(std::nullopt);
    for (int i = 0; i <= k; ++i) BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
    BOOST_REQUIRE(testing::loop_state_digest(t, total, history) == expected[static_cast<std::size_t>(k)]);
  }
}

BOOST_AUTO_TEST_CASE(lowering_the_limit_evicts_at_once_and_out_of_range_is_refused) {
  Recording rec;
  uint64_t tick = testing::symbol_address(rec.binary(), "tick");
  ReplayTimeline t(rec.trace());
  // A walk that stops at every hit leaves a checkpoint every 32 (a counted
  // one far fewer, by the kernel or a counting stub): there are some to
  // evict.
  t.set_kernel_counting(ReplayTimeline::KernelCounting::Off);
  t.set_stub_walks(ReplayTimeline::StubWalks::Off);
  t.set_breakpoint(tick, TrapKind::Software);
  BOOST_TEST(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
  t.remove_breakpoint(tick, TrapKind::Software);
  BOOST_TEST(go(t, RunDirection::Forward).kind == TargetStop::Kind::HistoryEnd);
  t.set_breakpoint(tick, TrapKind::Software);
  BOOST_TEST(go(t, RunDirection::Backward).kind == TargetStop::Kind::Breakpoint);  // walks 900 hits
  int user = t.create_checkpoint();
  CheckpointStats before = t.checkpoint_stats();
  BOOST_TEST(before.limit == 64u);
  BOOST_TEST(before.automatic > 2u);
  BOOST_TEST(before.user == 1u);
  t.set_checkpoint_limit(2);
  CheckpointStats after = t.checkpoint_stats();
  BOOST_TEST(after.automatic <= 2u);
  BOOST_TEST(after.evicted >= before.evicted + (before.automatic - 2));
  BOOST_TEST(after.user == 1u);  // the user's own is never evicted
  BOOST_TEST(t.restart_checkpoint(user));
  BOOST_CHECK_THROW(t.set_checkpoint_limit(1), std::invalid_argument);
  BOOST_CHECK_THROW(t.set_checkpoint_limit(100000), std::invalid_argument);
  BOOST_TEST(t.checkpoint_stats().limit == 2u);
}

BOOST_AUTO_TEST_CASE(checkpoints_stay_within_the_memory_limit) {
  Recording rec;
  uint64_t tick = testing::symbol_address(rec.binary(), "tick");
  // The same reverse-continues, without and with a memory limit of 2 MiB
  // (every tick rewrites one page of a megabyte: checkpoints made 256 hits
  // apart hold a megabyte each).
  // Walks that stop at every hit leave a checkpoint every 32 hits (counted
  // walks leave far fewer, too few to need the limit): what is bounded here
  // is what they hold, however they were made.
  auto run = [&](ReplayTimeline& t) {
    t.set_kernel_counting(ReplayTimeline::KernelCounting::Off);
    t.set_stub_walks(ReplayTimeline::StubWalks::Off);
    BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::HistoryEnd);
    t.set_breakpoint(tick, TrapKind::Software);
    for (int k = 0; k < 40; ++k) BOOST_REQUIRE(go(t, RunDirection::Backward).kind == TargetStop::Kind::Breakpoint);
    return t.checkpoint_stats();
  };
  {
    ReplayTimeline unbounded(rec.trace());
    CheckpointStats s = run(unbounded);
    BOOST_TEST_MESSAGE("without a memory limit: " << s.memory_kib << " KiB in " << s.automatic << " checkpoints");
    BOOST_TEST(s.memory_kib > 2u * 1024);  // so the limit below has work to do
    BOOST_TEST(s.evicted_for_memory == 0u);
  }
  ReplayTimeline t(rec.trace());
  t.set_checkpoint_memory_limit(2 * 1024);
  CheckpointStats s = run(t);
  BOOST_TEST_MESSAGE("with 2 MiB: " << s.memory_kib << " KiB in " << s.automatic << " checkpoints, "
                                    << s.evicted_for_memory << " evicted for memory");
  // Measured every few checkpoints made; setting the limit measures now.
  t.set_checkpoint_memory_limit(2 * 1024);
  CheckpointStats now = t.checkpoint_stats();
  BOOST_TEST(now.memory_kib <= 2u * 1024);
  BOOST_TEST(now.evicted_for_memory > 0u);
  BOOST_CHECK_THROW(t.set_checkpoint_memory_limit(100), std::invalid_argument);
  // Still exact: forwards from here reaches the next hit's value.
  uint64_t total = testing::symbol_address(rec.binary(), "total");
  std::vector<uint8_t> before = t.read_memory(total, 8);
  BOOST_REQUIRE(go(t, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
  BOOST_TEST(t.read_memory(total, 8) != before);
}
