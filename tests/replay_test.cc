// Replay's own checks on real recordings: a trace from a CPU with other
// features is refused; a trace whose registers disagree with what the
// program does is reported as a divergence at the right event.
#define BOOST_TEST_MODULE replay
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <functional>
#include <string>

#include "engine/core/registers.h"
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
