// How positions between events are measured. Probed at start-up, never
// assumed (DESIGN.md, "Progress and positions").
#pragma once

#include <string>

namespace backstep {

enum class CounterMode { None, HardwareBranches };

struct CounterProbe {
  CounterMode mode = CounterMode::None;
  std::string name;    // "none" or the perf event used
  std::string detail;  // why (e.g. "perf_event_open: No such file or directory")
};

// Tries to open a deterministic retired-conditional-branch counter on this
// CPU. Returns mode None with the reason when there is none.
CounterProbe probe_progress_counter();

}  // namespace backstep
