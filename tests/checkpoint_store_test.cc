// CheckpointStore (engine/timeline/checkpoint_store.h) with fake sessions:
// which checkpoint best_before() picks, which ones the count and memory
// bounds evict (the start of history, the user's, the pinned one and the
// newest reach kept), and what stats() says. No process is forked: each
// fake only counts itself alive and says what memory it holds.
#define BOOST_TEST_MODULE checkpoint_store
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <ostream>
#include <set>
#include <stdexcept>
#include <vector>

#include "engine/timeline/checkpoint_store.h"

using namespace backstep;

namespace backstep {
std::ostream& operator<<(std::ostream& os, const Mark& m) { return os << m.describe(); }
}  // namespace backstep

namespace {

using Kind = CheckpointStore::Kind;
using Bound = CheckpointStore::Bound;
using Where = CheckpointStore::Where;

constexpr uint64_t kNoMemoryBound = UINT64_MAX;

int live_fakes = 0;

struct FakeSession : HeldSession {
  explicit FakeSession(uint64_t kib) : kib(kib) { ++live_fakes; }
  ~FakeSession() override { --live_fakes; }
  std::unique_ptr<ReplaySession> clone() override { return nullptr; }
  uint64_t memory_kib() const override { return kib; }
  uint64_t kib;
};

CheckpointStore::Fork fake(uint64_t kib = 0) {
  return [kib] { return std::make_unique<FakeSession>(kib); };
}

Mark boundary(uint64_t event) { return Mark{event, {}, 0}; }
Mark steps(uint64_t event, uint64_t n) { return Mark{event, {}, n}; }

// The marks of the live checkpoints, in the store's order.
std::vector<Mark> marks(const CheckpointStore& store) {
  std::vector<Mark> out;
  for (const CheckpointStore::Checkpoint& cp : store) out.push_back(cp.mark);
  return out;
}

bool has(const CheckpointStore& store, const Mark& m) {
  for (const CheckpointStore::Checkpoint& cp : store) {
    if (cp.mark == m) return true;
  }
  return false;
}

std::string describe(const CheckpointStore::Checkpoint* cp) { return cp ? cp->mark.describe() : "none"; }

}  // namespace

BOOST_AUTO_TEST_CASE(best_before_bounds_and_boundaries) {
  CheckpointStore store(kNoMemoryBound);
  store.add_start(boundary(0), fake());
  store.add(Kind::Automatic, boundary(10), fake());
  store.add(Kind::Automatic, steps(10, 5), fake());
  store.add(Kind::User, boundary(20), fake());

  BOOST_TEST(describe(store.best_before(steps(10, 5), Bound::Inclusive)) == steps(10, 5).describe());
  BOOST_TEST(describe(store.best_before(steps(10, 5), Bound::Exclusive)) == boundary(10).describe());
  BOOST_TEST(describe(store.best_before(steps(10, 7), Bound::Inclusive)) == steps(10, 5).describe());
  BOOST_TEST(describe(store.best_before(steps(10, 7), Bound::Inclusive, Where::AtBoundary)) ==
             boundary(10).describe());
  // A position inside an interval is on the way to no later event.
  BOOST_TEST(describe(store.best_before(boundary(20), Bound::Exclusive)) == boundary(10).describe());
  BOOST_TEST(describe(store.best_before(boundary(20), Bound::Inclusive)) == boundary(20).describe());
  BOOST_TEST(describe(store.best_before(steps(15, 3), Bound::Inclusive)) == boundary(10).describe());
  BOOST_TEST(describe(store.best_before(boundary(0), Bound::Inclusive)) == boundary(0).describe());
  BOOST_TEST(store.best_before(boundary(0), Bound::Exclusive) == nullptr);

  BOOST_TEST(store.has_at(steps(10, 5)));
  BOOST_TEST(!store.has_at(steps(10, 6)));
  BOOST_TEST(store.front().mark == boundary(0));
}

BOOST_AUTO_TEST_CASE(ids_user_checkpoints_and_stats) {
  live_fakes = 0;
  {
    CheckpointStore store(kNoMemoryBound);
    store.add_start(boundary(0), fake());
    BOOST_TEST(store.front().id == 0);
    BOOST_TEST(store.add(Kind::User, boundary(3), fake()) == 1);
    BOOST_TEST(store.add(Kind::Automatic, boundary(5), fake()) == -1);
    BOOST_TEST(store.add(Kind::User, steps(5, 2), fake()) == 2);
    BOOST_TEST(store.add(Kind::AtState, steps(5, 9), fake()) == -2);
    BOOST_TEST(live_fakes == 5);

    BOOST_REQUIRE(store.find_user(2));
    BOOST_TEST(store.find_user(2)->mark == steps(5, 2));
    BOOST_TEST(store.find_user(0) == nullptr);   // the start is not the user's
    BOOST_TEST(store.find_user(-1) == nullptr);  // nor an automatic one
    BOOST_TEST(!store.remove_user(-1));
    BOOST_TEST(store.remove_user(1));
    BOOST_TEST(!store.remove_user(1));
    BOOST_TEST(live_fakes == 4);

    CheckpointStats s = store.stats();
    BOOST_TEST(s.limit == checkpoint_policy::kDefaultMaxCheckpoints);
    BOOST_TEST(s.automatic == 2u);  // the start not counted
    BOOST_TEST(s.peak == 2u);
    BOOST_TEST(s.user == 1u);
    BOOST_TEST(s.evicted == 0u);  // a user's checkpoint deleted is not evicted
    BOOST_TEST(s.memory_limit_kib == kNoMemoryBound);
  }
  BOOST_TEST(live_fakes == 0);
}

BOOST_AUTO_TEST_CASE(count_bound_keeps_the_start_and_the_users) {
  live_fakes = 0;
  const std::size_t limit = 4;
  CheckpointStore store(kNoMemoryBound);
  store.set_limit(limit);
  store.add_start(boundary(0), fake());
  store.add(Kind::User, boundary(7), fake());
  store.add(Kind::User, steps(300, 11), fake());
  std::size_t made = 0;
  for (uint64_t e = 1; e <= 40; ++e) {
    Mark m = e % 2 ? boundary(e * 10) : steps(e * 10, e);
    store.add(Kind::Automatic, m, [&] {
      // Room is made before the fork: never one too many alive.
      BOOST_TEST(static_cast<std::size_t>(live_fakes) - 3 <= limit - 1);
      return std::make_unique<FakeSession>(0);
    });
    ++made;
    BOOST_TEST(store.stats().automatic <= limit);
  }
  CheckpointStats s = store.stats();
  BOOST_TEST(s.automatic == limit);
  BOOST_TEST(s.peak == limit);
  BOOST_TEST(s.user == 2u);
  BOOST_TEST(s.evicted == made - limit);
  BOOST_TEST(store.front().mark == boundary(0));
  BOOST_TEST(store.find_user(1));
  BOOST_TEST(store.find_user(2));
  BOOST_TEST(static_cast<std::size_t>(live_fakes) == 3 + limit);  // evicted ones are destroyed

  // A lower limit thins at once; out of range is refused.
  store.set_limit(2);
  BOOST_TEST(store.stats().automatic == 2u);
  BOOST_CHECK_THROW(store.set_limit(checkpoint_policy::kMinMaxCheckpoints - 1), std::invalid_argument);
  BOOST_CHECK_THROW(store.set_limit(checkpoint_policy::kMaxMaxCheckpoints + 1), std::invalid_argument);
  BOOST_TEST(store.stats().limit == 2u);
}

BOOST_AUTO_TEST_CASE(boundary_checkpoints_keep_to_their_share_spread) {
  CheckpointStore store(kNoMemoryBound);
  store.set_limit(8);  // at most 4 at boundaries
  store.add_start(boundary(0), fake());
  for (uint64_t e : {100, 200, 300, 400}) store.add(Kind::Automatic, boundary(e), fake());
  BOOST_TEST(store.stats().automatic == 4u);
  // One more between 100 and 200: its neighbours are the closest, so it goes.
  store.add(Kind::Automatic, boundary(150), fake());
  BOOST_TEST(!has(store, boundary(150)));
  // The newest reach is kept; of equal gaps, the earliest goes.
  store.add(Kind::Automatic, boundary(1000), fake());
  std::vector<Mark> expected{boundary(0), boundary(200), boundary(300), boundary(400), boundary(1000)};
  BOOST_TEST(marks(store) == expected);
  BOOST_TEST(store.stats().evicted == 2u);
}

BOOST_AUTO_TEST_CASE(inner_checkpoints_keep_the_deepest_and_the_recent) {
  const std::size_t limit = 8;  // the two most recently made kept out of the spreading
  CheckpointStore store(kNoMemoryBound);
  store.set_limit(limit);
  store.add_start(boundary(0), fake());
  for (uint64_t k = 1; k <= 20; ++k) store.add(Kind::Automatic, steps(50, 64 * k), fake());
  BOOST_TEST(store.stats().automatic == limit);
  BOOST_TEST(has(store, steps(50, 64 * 20)));  // the deepest and most recent
  BOOST_TEST(has(store, steps(50, 64 * 19)));  // recent
  // Another interval: the first one's, but for the recent, go first, the
  // oldest made first.
  std::vector<Mark> before = marks(store);
  store.add(Kind::Automatic, steps(60, 5), fake());
  store.add(Kind::Automatic, steps(60, 10), fake());
  BOOST_TEST(has(store, steps(60, 5)));
  BOOST_TEST(has(store, steps(60, 10)));
  BOOST_TEST(has(store, steps(50, 64 * 20)));
  BOOST_TEST(!has(store, before[1]));  // the oldest made of interval 50
  BOOST_TEST(store.stats().automatic == limit);
}

BOOST_AUTO_TEST_CASE(pinned_checkpoint_is_not_evicted) {
  CheckpointStore store(kNoMemoryBound);
  store.set_limit(2);
  store.add_start(boundary(0), fake());
  store.add(Kind::Automatic, steps(50, 1), fake());
  store.pin(steps(50, 1));
  for (uint64_t k = 2; k <= 30; ++k) {
    store.add(Kind::Automatic, steps(50, k), fake());
    BOOST_TEST(has(store, steps(50, 1)));
    BOOST_TEST(store.stats().automatic <= 2u);
  }
  store.pin(std::nullopt);
  store.add(Kind::Automatic, steps(50, 31), fake());
  store.add(Kind::Automatic, steps(50, 32), fake());
  BOOST_TEST(!has(store, steps(50, 1)));
}

BOOST_AUTO_TEST_CASE(state_checkpoints_go_after_the_others_and_are_capped) {
  CheckpointStore store(kNoMemoryBound);
  store.set_limit(4);
  store.add_start(boundary(0), fake());
  store.add(Kind::AtState, steps(50, 3), fake());
  for (uint64_t k = 1; k <= 10; ++k) store.add(Kind::Automatic, steps(70, k), fake());
  BOOST_TEST(has(store, steps(50, 3)));
  BOOST_TEST(store.stats().automatic == 4u);

  store.add(Kind::AtState, steps(70, 20), fake());
  store.add(Kind::AtState, steps(70, 21), fake());
  store.cap_states(2);  // three held: the oldest goes
  BOOST_TEST(!has(store, steps(50, 3)));
  BOOST_TEST(has(store, steps(70, 20)));
  BOOST_TEST(has(store, steps(70, 21)));
}

BOOST_AUTO_TEST_CASE(checkpoints_held_elsewhere_count) {
  std::size_t elsewhere = 1;
  CheckpointStore store(kNoMemoryBound, [&] { return elsewhere; });
  store.set_limit(3);
  store.add_start(boundary(0), fake());
  for (uint64_t k = 1; k <= 10; ++k) store.add(Kind::Automatic, steps(50, k), fake());
  BOOST_TEST(store.size() == 1u + 2u);  // the start and two: the third is held elsewhere
  BOOST_TEST(store.stats().automatic == 3u);
  elsewhere = 2;
  store.make_room();  // for one more held elsewhere
  BOOST_TEST(store.size() == 1u + 0u);
  elsewhere = 3;
  store.note_peak();
  BOOST_TEST(store.stats().peak == 3u);
}

BOOST_AUTO_TEST_CASE(memory_bound_measures_every_so_many_and_on_request) {
  CheckpointStore store(4 * 1024);
  store.add_start(boundary(0), fake(100'000));  // the start is not counted
  // Measured when the kCheckpointsPerMemoryCheck-th is made (the start
  // among them).
  const std::size_t every = checkpoint_policy::kCheckpointsPerMemoryCheck;
  for (std::size_t k = 1; k + 1 < every; ++k) store.add(Kind::Automatic, steps(50, k), fake(1024));
  CheckpointStats s = store.stats();
  BOOST_TEST(s.automatic == every - 2);
  BOOST_TEST(s.memory_kib == (every - 2) * 1024);  // over the bound until the next measure
  store.add(Kind::User, steps(50, 100), fake(100'000));  // nor are the user's counted
  store.add(Kind::Automatic, steps(50, every), fake(1024));
  s = store.stats();
  BOOST_TEST(s.automatic == 4u);
  BOOST_TEST(s.memory_kib == 4u * 1024);
  BOOST_TEST(s.evicted == every - 1 - 4);
  BOOST_TEST(s.evicted_for_memory == every - 1 - 4);
  BOOST_TEST(s.user == 1u);

  store.set_memory_limit(2 * 1024);
  s = store.stats();
  BOOST_TEST(s.automatic == 2u);
  BOOST_TEST(s.memory_limit_kib == 2u * 1024);
  BOOST_TEST(s.evicted_for_memory == every - 1 - 2);
  BOOST_CHECK_THROW(store.set_memory_limit(1023), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(automatic_checkpoints_fall_due_by_events) {
  // Far more replay time per checkpoint than this test takes: only the
  // number of events makes one due. (Read once, before the first use.)
  setenv("BACKSTEP_CHECKPOINT_MS", "3600000", 1);
  CheckpointStore store(kNoMemoryBound);
  store.add_start(boundary(0), fake());
  const uint64_t every = checkpoint_policy::kEventsPerCheckpoint;
  BOOST_TEST(!store.add_if_due(boundary(5), fake()));
  BOOST_TEST(store.add_if_due(boundary(every), fake()));
  BOOST_TEST(!store.add_if_due(steps(3 * every, 1), fake()));  // only at event boundaries
  BOOST_TEST(!store.add_if_due(boundary(2 * every - 1), fake()));
  BOOST_TEST(store.add_if_due(boundary(2 * every), fake()));
  BOOST_TEST(store.size() == 3u);
  // Where the replay crawls (watchpoints emulated by single steps): at every
  // new boundary, never inside an interval nor at an older boundary.
  constexpr auto every_boundary = CheckpointStore::Pace::EveryBoundary;
  BOOST_TEST(store.add_if_due(boundary(2 * every + 1), fake(), every_boundary));
  BOOST_TEST(!store.add_if_due(boundary(2 * every + 1), fake(), every_boundary));
  BOOST_TEST(!store.add_if_due(steps(2 * every + 2, 1), fake(), every_boundary));
  BOOST_TEST(!store.add_if_due(boundary(2 * every), fake(), every_boundary));
  BOOST_TEST(store.add_if_due(boundary(2 * every + 2), fake(), every_boundary));
  BOOST_TEST(store.size() == 5u);
}
