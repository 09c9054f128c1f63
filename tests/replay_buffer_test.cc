// Syscall buffering end to end in the engine: a recording with the preload
// library holds BufferFlush events whose calls replay returns without
// performing them, and a buffered call that no longer matches its record
// (other data written, another call made) is reported as a divergence at
// the flush's thread, with what differs.
#define BOOST_TEST_MODULE replay_buffer
#include <boost/test/unit_test.hpp>

#include <cstring>
#include <filesystem>
#include <functional>
#include <string>

#include "engine/replay/replay_session.h"
#include "engine/trace/reader.h"
#include "engine/trace/writer.h"
#include "preload/preload_interface.h"
#include "tests/support/recording.h"

namespace backstep {
namespace {

namespace fs = std::filesystem;

struct Recording : testing::Recording {
  Recording()
      : testing::Recording(BUFFER_TARGET, {"/tmp/backstep-buffer-target-" + std::to_string(getpid())}, PRELOAD_LIBRARY) {
    BOOST_REQUIRE(result().completed);
  }

  std::string copy(const std::string& name, const std::function<void(trace::Event&)>& edit_event) const {
    std::string out = dir() + "/" + name;
    trace::TraceReader in(trace());
    trace::TraceWriter writer(out, in.header());
    fs::copy(trace() + "/files", out + "/files", fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    while (std::optional<trace::Event> e = in.next()) {
      edit_event(*e);
      writer.write(*e);
    }
    writer.finish();
    return out;
  }

  // Calls in the BufferFlush events, and the system calls (traced) of `nr`.
  std::pair<uint64_t, uint64_t> counts(long nr) const {
    trace::TraceReader in(trace());
    uint64_t buffered = 0, traced = 0;
    while (std::optional<trace::Event> e = in.next()) {
      if (e->kind == trace::EventKind::Syscall && Registers::from_block(*e->regs).syscallno() == static_cast<uint64_t>(nr)) ++traced;
      if (e->kind != trace::EventKind::BufferFlush) continue;
      const std::vector<uint8_t>& data = e->writes.at(0).data;
      for (std::size_t at = 0; at + sizeof(bs_record) <= data.size();) {
        bs_record r;
        std::memcpy(&r, data.data() + at, sizeof(r));
        at += r.size;
        ++buffered;
      }
    }
    return {buffered, traced};
  }
};

ReplayOptions quiet() {
  ReplayOptions o;
  o.echo_stdio = false;
  return o;
}

// Applies `edit` to the first record of `nr` in the first flush that has one.
std::function<void(trace::Event&)> edit_first_record(uint32_t nr, std::function<void(bs_record&, uint8_t* data)> edit) {
  auto done = std::make_shared<bool>(false);
  return [=](trace::Event& e) {
    if (*done || e.kind != trace::EventKind::BufferFlush) return;
    std::vector<uint8_t>& data = e.writes.at(0).data;
    for (std::size_t at = 0; at + sizeof(bs_record) <= data.size();) {
      bs_record r;
      std::memcpy(&r, data.data() + at, sizeof(r));
      if (r.nr == nr) {
        edit(r, data.data() + at + sizeof(r));
        std::memcpy(data.data() + at, &r, sizeof(r));
        *done = true;
        return;
      }
      at += r.size;
    }
  };
}

std::string divergence(const std::string& trace) {
  try {
    ReplaySession(trace, quiet()).run_to_end();
  } catch (const ReplayDivergence& e) {
    return e.what();
  }
  BOOST_FAIL("replay did not notice the changed buffered call");
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(most_calls_are_buffered_and_replay_returns_them) {
  Recording rec;
  auto [writes_buffered, writes_traced] = rec.counts(1);
  // The first call at each site is traced (it patches the site); the rest
  // go through the buffer.
  BOOST_TEST(writes_buffered >= 150u);  // 99 writes + 99 preads at least
  BOOST_TEST(writes_traced <= 2u);
  ReplayResult r = ReplaySession(rec.trace(), quiet()).run_to_end();
  BOOST_TEST(r.exit_status == rec.result().exit_status);
  BOOST_TEST(static_cast<int>(r.end) == static_cast<int>(ReplayResult::End::Exited));
}

BOOST_AUTO_TEST_CASE(other_data_written_is_a_divergence) {
  Recording rec;
  std::string copy = rec.copy("data", edit_first_record(1, [](bs_record& r, uint8_t*) { r.check ^= 1; }));
  std::string what = divergence(copy);
  BOOST_TEST(what.find("a buffered write writes other data than when it was recorded") != std::string::npos, what);
}

BOOST_AUTO_TEST_CASE(another_call_is_a_divergence) {
  Recording rec;
  std::string copy = rec.copy("call", edit_first_record(1, [](bs_record& r, uint8_t*) { r.nr = 39; }));
  std::string what = divergence(copy);
  BOOST_TEST(what.find("the program made write, the recording has getpid here") != std::string::npos, what);
}

BOOST_AUTO_TEST_CASE(a_recorded_result_is_what_the_program_sees) {
  // The program sums the bytes pread returned, in a register: one more in
  // the first buffered pread's recorded output is one more in that sum at
  // the next traced event, which only the record can have given the program.
  Recording rec;
  std::string copy = rec.copy("result", edit_first_record(17, [](bs_record& r, uint8_t* data) {
    BOOST_REQUIRE(r.out_len[0] == 1u);
    data[0] += 1;
  }));
  std::string what = divergence(copy);
  BOOST_TEST(what.find("registers differ") != std::string::npos, what);
}

}  // namespace backstep
