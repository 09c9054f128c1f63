// `backstep dump [TRACE]` and `backstep ls`. The text of each line is
// cli/event_text.cc's.
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <map>
#include <string>

#include "cli/commands.h"
#include "cli/event_text.h"
#include "cli/trace_dir.h"
#include "engine/trace/printable.h"
#include "engine/trace/reader.h"
#include "engine/trace/trace_error.h"

namespace backstep::cli {

namespace {

// What `dump --stats` counts: events by kind, and each thread's positions
// by how replay finds them (docs/trace-format.md) with the bytes of state
// stored with them (memory and XSAVE areas), full or incremental.
struct PositionStats {
  uint64_t counted = 0, by_digest = 0, fixpoints = 0, with_state = 0, state_bytes = 0;
  uint64_t full = 0, incremental = 0;
  uint64_t total() const { return counted + by_digest; }
  void add(const trace::Event& e) {
    if (!e.position) return;
    if (e.position->counted()) {
      ++counted;
      return;
    }
    ++by_digest;
    if (e.position->fixpoint) ++fixpoints;
    if (!e.stored_state) return;
    ++with_state;
    ++(e.stored_state->kind == trace::StoredState::Kind::Full ? full : incremental);
    for (const trace::MemoryWrite& w : e.writes) state_bytes += w.data.size();
    state_bytes += e.xstate.size();
  }
  std::string text() const {
    char b[256];
    std::snprintf(b, sizeof b,
                  "%" PRIu64 " (counted %" PRIu64 ", by digest %" PRIu64 ": %" PRIu64 " fixpoints, %" PRIu64
                  " with a stored state), stored state %" PRIu64 " bytes (%" PRIu64 " full, %" PRIu64
                  " incremental)",
                  total(), counted, by_digest, fixpoints, with_state, state_bytes, full, incremental);
    return b;
  }
};

struct TraceStats {
  uint64_t events = 0;
  std::map<std::string, uint64_t> kinds;
  PositionStats positions;
  std::map<uint32_t, PositionStats> by_thread;
  void add(const trace::Event& e) {
    ++events;
    ++kinds[trace::to_string(e.kind)];
    if (e.kind != trace::EventKind::Position) return;
    positions.add(e);
    by_thread[e.tid].add(e);
  }
  void print() const {
    std::printf("# events: %" PRIu64 "\n", events);
    for (const auto& [kind, n] : kinds) std::printf("# %s: %" PRIu64 "\n", kind.c_str(), n);
    std::printf("# positions: %s\n", positions.text().c_str());
    for (const auto& [tid, p] : by_thread) std::printf("# positions of thread %u: %s\n", tid, p.text().c_str());
  }
};

}  // namespace

int dump_command(const Args& given) {
  Args args = given;
  bool stats = false;
  if (!args.empty() && args[0] == "--stats") {
    stats = true;
    args.erase(args.begin());
  }
  if (args.size() > 1) {
    error("dump takes one trace");
    return kExitUsage;
  }
  std::signal(SIGPIPE, SIG_DFL);
  std::string dir = resolve_trace(args.empty() ? "" : args[0]);
  try {
    trace::TraceReader reader(dir);
    std::fputs(header_text(dir, reader.header()).c_str(), stdout);
    TraceStats counts;
    for (;;) {
      uint64_t n = reader.next_event_number();
      auto event = reader.next();
      if (!event) break;
      if (stats) {
        counts.add(*event);
      } else {
        std::printf("%" PRIu64 " tid %u %s\n", n, event->tid, event_text(*event).c_str());
      }
    }
    if (stats) counts.print();
    if (reader.truncated()) {
      std::printf("# the trace ends at event %" PRIu64 " (cut short)\n", reader.next_event_number());
    }
  } catch (const trace::TraceError& e) {
    std::fflush(stdout);
    error(e.what());
    return kExitFailure;
  }
  return 0;
}

int ls_command(const Args& args) {
  if (!args.empty()) {
    error("ls takes no arguments");
    return kExitUsage;
  }
  std::string latest;
  try {
    latest = resolve_trace("");
  } catch (...) {
  }
  for (const std::string& name : list_traces()) {
    bool is_latest = !latest.empty() && latest.size() >= name.size() &&
                     latest.compare(latest.size() - name.size(), name.size(), name) == 0 &&
                     (latest.size() == name.size() || latest[latest.size() - name.size() - 1] == '/');
    std::printf("%s%s\n", trace::printable(name).c_str(), is_latest ? "  (latest)" : "");
  }
  return 0;
}

}  // namespace backstep::cli
