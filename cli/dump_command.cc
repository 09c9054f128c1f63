// `backstep dump [TRACE]` and `backstep ls`. The text of each line is
// cli/event_text.cc's.
#include <cinttypes>
#include <csignal>
#include <cstdio>
#include <string>

#include "cli/commands.h"
#include "cli/event_text.h"
#include "cli/trace_dir.h"
#include "engine/trace/printable.h"
#include "engine/trace/reader.h"
#include "engine/trace/trace_error.h"

namespace backstep::cli {

int dump_command(const Args& args) {
  if (args.size() > 1) {
    error("dump takes one trace");
    return kExitUsage;
  }
  std::signal(SIGPIPE, SIG_DFL);
  std::string dir = resolve_trace(args.empty() ? "" : args[0]);
  try {
    trace::TraceReader reader(dir);
    std::fputs(header_text(dir, reader.header()).c_str(), stdout);
    for (;;) {
      uint64_t n = reader.next_event_number();
      auto event = reader.next();
      if (!event) break;
      std::printf("%" PRIu64 " tid %u %s\n", n, event->tid, event_text(*event).c_str());
    }
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
