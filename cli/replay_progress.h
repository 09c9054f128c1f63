// The progress line of `backstep replay --autopilot` on a terminal: events
// replayed of the trace's total, and the rate, redrawn at most five times a
// second on stderr, then a last line when the replay ends. Nothing at all
// when stderr is not a terminal (a pipe, a file, a test's capture).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace backstep::cli {

class ReplayProgress {
 public:
  // `dir`: the trace, whose event count is read from its chunk headers.
  explicit ReplayProgress(const std::string& dir);
  bool enabled() const { return enabled_; }
  // The next event's number: redraws the line when it is due.
  void update(uint64_t next_event);
  // The last line (with a newline), if the line was enabled. `complete`:
  // the replay reached the trace's end (its final event counts as done).
  void finish(uint64_t events, bool complete);

 private:
  void draw(uint64_t events, bool last);

  bool enabled_ = false;
  uint64_t total_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point next_draw_;
};

}  // namespace backstep::cli
