// How the timeline places and keeps checkpoints (shared by the files of
// engine/timeline). Numbers measured with bench/reverse.py.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace backstep::checkpoint_policy {

// Automatic checkpoints along forward replay: one every so many events or
// so much replay time, at most kMaxAuto of them spread over the trace.
inline constexpr uint64_t kEventsPerCheckpoint = 1000;
inline constexpr auto kTimePerCheckpoint = std::chrono::milliseconds(250);
inline constexpr std::size_t kMaxAuto = 32;
// Checkpoints inside the current interval (left by stepping and searches).
inline constexpr std::size_t kMaxHere = 64;
// While walking to a position (and while stepping forward), leave a
// checkpoint every so many steps or trap hits, so that nearby positions are
// reached without replaying again from the interval's start.
inline constexpr uint64_t kStepsPerWalkCheckpoint = 64;
inline constexpr uint64_t kHitsPerWalkCheckpoint = 32;

}  // namespace backstep::checkpoint_policy
