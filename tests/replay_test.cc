// Replay's own checks on real recordings: a trace from a CPU with other
// features is refused; a trace whose registers disagree with what the
// program does is reported as a divergence at the right event.
#define BOOST_TEST_MODULE replay
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <functional>
#include <string>

#include "values/registers.h"
#include "engine/replay/replay_session.h"
#include "engine/trace/reader.h"
#include "engine/trace/writer.h"
#include "tests/support/recording.h"

using namespace backstep;
namespace fs = std::filesystem;

namespace {

struct Recording : testing::Recording {
  Recording() : testing::Recording(TIMELINE_TARGET) { BOOST_REQUIRE(result().completed); }

  // A copy of the trace with its header and events passed through `edit`.
  std::string copy(const std::string& name, const std::function<void(trace::Header&)>& edit_header,
                   const std::function<void(uint64_t, trace::Event&)>& edit_event) const {
    std::string out = dir() + "/" + name;
    trace::TraceReader in(trace());
    trace::Header h = in.header();
    edit_header(h);
    trace::TraceWriter writer(out, h);
    fs::copy(trace() + "/files", out + "/files", fs::copy_options::recursive | fs::copy_options::overwrite_existing);
    for (uint64_t n = 0;; ++n) {
      std::optional<trace::Event> e = in.next();
      if (!e) break;
      edit_event(n, *e);
      writer.write(*e);
    }
    writer.finish();
    return out;
  }
};

ReplayOptions quiet() {
  ReplayOptions o;
  o.echo_stdio = false;
  return o;
}

}  // namespace

BOOST_AUTO_TEST_CASE(unchanged_copy_replays) {
  Recording rec;
  std::string copy = rec.copy("same", [](trace::Header&) {}, [](uint64_t, trace::Event&) {});
  ReplayResult r = ReplaySession(copy, quiet()).run_to_end();
  BOOST_TEST(r.exit_status == 55);
  BOOST_TEST(static_cast<int>(r.end) == static_cast<int>(ReplayResult::End::Exited));
}

BOOST_AUTO_TEST_CASE(other_cpu_features_are_refused) {
  Recording rec;
  std::string copy = rec.copy(
      "other-cpu",
      [](trace::Header& h) {
        for (auto& leaf : h.cpuid) {
          if (leaf.leaf == 1) leaf.ecx ^= 1u << 28;  // AVX
        }
      },
      [](uint64_t, trace::Event&) {});
  try {
    ReplaySession session(copy, quiet());
    BOOST_FAIL("replay accepted a trace from a CPU with other features");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(std::string(e.what()).find("CPU with other features") != std::string::npos, e.what());
  }
}

BOOST_AUTO_TEST_CASE(changed_registers_are_a_divergence_at_that_event) {
  Recording rec;
  // Find the first write(1, ...) and pretend its buffer pointer was different.
  uint64_t target = 0;
  {
    trace::TraceReader in(rec.trace());
    for (uint64_t n = 0;; ++n) {
      auto e = in.next();
      BOOST_REQUIRE(e);
      if (e->kind != trace::EventKind::Syscall) continue;
      Registers r = Registers::from_block(*e->regs);
      if (r.syscallno() == 1 && r.arg(0) == 1) {
        target = n;
        break;
      }
    }
  }
  std::string copy = rec.copy(
      "diverging", [](trace::Header&) {},
      [&](uint64_t n, trace::Event& e) {
        if (n != target) return;
        Registers r = Registers::from_block(*e.regs);
        r.set_arg(2, r.arg(2) + 1);  // rdx: the length
        e.regs = r.to_block();
      });
  try {
    ReplaySession(copy, quiet()).run_to_end();
    BOOST_FAIL("replay did not notice the changed registers");
  } catch (const ReplayDivergence& e) {
    BOOST_TEST(e.event() == target);
    std::string what = e.what();
    BOOST_TEST(what.find("replay diverged at event " + std::to_string(target)) == 0u, what);
    BOOST_TEST(what.find("rdx recorded 0x2 live 0x1") != std::string::npos, what);
  }
}

namespace {

// The first write(1, ...) of at least `min_size` bytes: its event number and event.
std::pair<uint64_t, trace::Event> first_stdout_write(const Recording& rec, uint64_t min_size = 1) {
  trace::TraceReader in(rec.trace());
  for (uint64_t n = 0;; ++n) {
    auto e = in.next();
    BOOST_REQUIRE(e);
    if (e->kind != trace::EventKind::Syscall) continue;
    Registers r = Registers::from_block(*e->regs);
    if (r.syscallno() == 1 && r.arg(0) == 1 && r.arg(2) >= min_size) return {n, *e};
  }
}

// Replays `copy` and returns the divergence message, failing if there is none.
std::string divergence(const std::string& copy, uint64_t expected_event) {
  try {
    ReplaySession(copy, quiet()).run_to_end();
  } catch (const ReplayDivergence& e) {
    BOOST_TEST(e.event() == expected_event);
    return e.what();
  }
  BOOST_FAIL("replay did not notice that the written data differs");
  return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(writes_carry_what_the_program_wrote) {
  Recording rec;
  auto [n, e] = first_stdout_write(rec);
  BOOST_REQUIRE(e.written.has_value());
  BOOST_TEST(static_cast<int>(e.written->form) == static_cast<int>(trace::WrittenData::Form::Echoed));
  BOOST_REQUIRE_EQUAL(e.echoes.size(), 1u);
  BOOST_TEST(e.written->size == e.echoes[0].data.size());
}

BOOST_AUTO_TEST_CASE(different_written_bytes_are_a_divergence_at_that_event) {
  Recording rec;
  // timeline_target writes its output a byte at a time.
  auto [target, original] = first_stdout_write(rec);
  std::size_t size = original.echoes.at(0).data.size();
  BOOST_REQUIRE(size >= 1);

  // The recorded output says otherwise at its last byte: as if the program
  // had computed other data when it was recorded.
  std::string echoed = rec.copy(
      "echo-differs", [](trace::Header&) {},
      [&](uint64_t n, trace::Event& e) {
        if (n == target) e.echoes[0].data[size - 1] ^= 0x20;
      });
  std::string what = divergence(echoed, target);
  BOOST_TEST(what == "replay diverged at event " + std::to_string(target) +
                         ": written data differs (first difference at byte " + std::to_string(size - 1) + " of " +
                         std::to_string(size) + ")");

  // The same with the data kept whole in the event (writes to other files).
  std::string bytes = rec.copy(
      "bytes-differ", [](trace::Header&) {},
      [&](uint64_t n, trace::Event& e) {
        if (n != target) return;
        trace::WrittenData d;
        d.form = trace::WrittenData::Form::Bytes;
        d.size = size;
        d.bytes = e.echoes[0].data;
        d.bytes[size - 1] ^= 1;
        e.written = d;
      });
  what = divergence(bytes, target);
  BOOST_TEST(what.find("first difference at byte " + std::to_string(size - 1)) != std::string::npos, what);

  // And hashed per block (large writes).
  std::string hashed = rec.copy(
      "hash-differs", [](trace::Header&) {},
      [&](uint64_t n, trace::Event& e) {
        if (n != target) return;
        trace::WrittenData d;
        d.form = trace::WrittenData::Form::BlockHashes;
        d.size = size;
        d.block_hashes = {0x1234};
        e.written = d;
      });
  what = divergence(hashed, target);
  BOOST_TEST(what.find("first difference in bytes 0.." + std::to_string(size - 1)) != std::string::npos, what);
}
