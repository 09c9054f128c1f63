// Positions' stored states in replay (engine/replay/replay_position.cc) on a
// real recording: two threads computing where no counting stub fits, with
// counted hand-overs off, so that every hand-over stores a state, most of
// them as the pages that changed since the one before. Replay rebuilds each
// whole state from the chain and takes it; a copy of the session (a
// checkpoint) holds the images its original had read, and goes on from
// there.
#define BOOST_TEST_MODULE stored_state
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <vector>

#include "engine/replay/replay_session.h"
#include "engine/trace/reader.h"
#include "tests/support/recording.h"

using namespace backstep;

namespace {

// The recorder reads BACKSTEP_COUNTED_HANDOVERS once, at its first
// hand-over: set before the recording starts.
const char* without_counted_handovers(const char* binary) {
  setenv("BACKSTEP_COUNTED_HANDOVERS", "0", 1);
  return binary;
}

struct StoredPosition {
  uint64_t event = 0;
  trace::StoredState::Kind kind = trace::StoredState::Kind::Full;
  uint64_t base = 0;
};

struct Recording : testing::Recording {
  Recording() : testing::Recording(without_counted_handovers(STORED_STATES_TARGET)) {
    BOOST_REQUIRE(result().completed);
    BOOST_REQUIRE_EQUAL(result().exit_status, 0);
    trace::TraceReader r(trace());
    for (uint64_t n = 0;; ++n) {
      std::optional<trace::Event> e = r.next();
      if (!e) break;
      if (n == 0) pid = e->tid;
      if (e->stored_state) stored.push_back({n, e->stored_state->kind, e->stored_state->base});
    }
  }
  uint32_t pid = 0;
  std::vector<StoredPosition> stored;
};

ReplayOptions unwatched() {
  ReplayOptions o;
  o.echo_stdio = false;
  o.unwatched = true;  // every stored state taken at once
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(states_form_chains_that_replay_rebuilds) {
  Recording rec;
  BOOST_REQUIRE_MESSAGE(rec.stored.size() >= 3, rec.stored.size() << " stored states");
  uint64_t incremental = 0;
  for (std::size_t i = 0; i < rec.stored.size(); ++i) {
    const StoredPosition& s = rec.stored[i];
    if (s.kind == trace::StoredState::Kind::Full) continue;
    ++incremental;
    // One process: each state builds on the one before.
    BOOST_REQUIRE(i > 0);
    BOOST_TEST(s.base == rec.stored[i - 1].event);
  }
  BOOST_TEST((rec.stored.front().kind == trace::StoredState::Kind::Full));
  BOOST_TEST(incremental >= rec.stored.size() / 2);

  ReplaySession s(rec.trace(), unwatched());
  ReplayResult end = s.run_to_end();
  BOOST_TEST(end.exit_status == 0);
  BOOST_TEST(*s.stored_state_event(rec.pid) == rec.stored.back().event);
}

BOOST_AUTO_TEST_CASE(a_copy_goes_on_with_the_images_read_before) {
  Recording rec;
  BOOST_REQUIRE(rec.stored.size() >= 3);
  // Past the second stored state, which the third builds on (or the first
  // incremental one after it).
  uint64_t cut = rec.stored[1].event;
  ReplaySession s(rec.trace(), unwatched());
  ReplaySession::Resume one;
  one.stop_after_event = true;
  while (s.next_event() <= cut) s.resume(one);
  BOOST_TEST(*s.stored_state_event(rec.pid) == cut);
  std::unique_ptr<ReplaySession> copy = s.clone();
  BOOST_REQUIRE(copy->stored_state_event(rec.pid).has_value());
  BOOST_TEST(*copy->stored_state_event(rec.pid) == cut);
  // The copy takes every later state, incremental ones on the images the
  // original read; each is checked against its digest.
  ReplayResult end = copy->run_to_end();
  BOOST_TEST(end.exit_status == 0);
  BOOST_TEST(*copy->stored_state_event(rec.pid) == rec.stored.back().event);
  // The original is where it was, and goes on too.
  BOOST_TEST(*s.stored_state_event(rec.pid) == cut);
  BOOST_TEST(s.run_to_end().exit_status == 0);
}
