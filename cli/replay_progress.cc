#include "cli/replay_progress.h"

#include <unistd.h>

#include <cstdio>
#include <limits>

#include "engine/trace/reader.h"

namespace backstep::cli {
namespace {

constexpr auto kRedraw = std::chrono::milliseconds(200);

}  // namespace

ReplayProgress::ReplayProgress(const std::string& dir) {
  enabled_ = isatty(STDERR_FILENO) == 1;
  if (!enabled_) return;
  try {
    trace::TraceReader reader(dir);
    reader.seek(std::numeric_limits<uint64_t>::max());  // skips chunks by their headers
    total_ = reader.next_event_number();
  } catch (const std::exception&) {
    total_ = 0;  // unknown: the line shows the count alone (the replay reports the damage)
  }
  start_ = std::chrono::steady_clock::now();
  next_draw_ = start_ + kRedraw;
}

void ReplayProgress::update(uint64_t next_event) {
  if (!enabled_ || (next_event & 255) != 0) return;  // the clock every 256 events
  auto now = std::chrono::steady_clock::now();
  if (now < next_draw_) return;
  next_draw_ = now + kRedraw;
  draw(next_event, false);
}

void ReplayProgress::finish(uint64_t events, bool complete) {
  if (enabled_) draw(complete && total_ > events ? total_ : events, true);
}

void ReplayProgress::draw(uint64_t events, bool last) {
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  double rate = seconds > 0 ? static_cast<double>(events) / seconds : 0;
  char of[64] = "";
  if (total_ > 0) {
    std::snprintf(of, sizeof of, " / %llu (%.0f%%)", static_cast<unsigned long long>(total_),
                  100.0 * static_cast<double>(events) / static_cast<double>(total_));
  }
  // \r and erase-to-end: one line, redrawn in place.
  std::fprintf(stderr, "\rbackstep: %s %llu%s events, %.0f events/s\x1b[K%s", last ? "replayed" : "replaying",
               static_cast<unsigned long long>(events), of, rate, last ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace backstep::cli
