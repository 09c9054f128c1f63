// How the timeline places and keeps checkpoints (shared by the files of
// engine/timeline). Numbers measured with bench/reverse.py.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace backstep::checkpoint_policy {

// Automatic checkpoints along forward replay: one every so many events or
// so much replay time.
inline constexpr uint64_t kEventsPerCheckpoint = 1000;
inline constexpr auto kTimePerCheckpoint = std::chrono::milliseconds(250);
// While walking to a position (and while stepping forward), leave a
// checkpoint every so many steps or trap hits, so that nearby positions are
// reached without replaying again from the interval's start.
inline constexpr uint64_t kStepsPerWalkCheckpoint = 64;
inline constexpr uint64_t kHitsPerWalkCheckpoint = 32;
// Walking to the n-th hit of a breakpoint, from this many hits on the kernel
// counts them (engine/core/hit_counter.h): one stop, plus one per checkpoint
// left, instead of an int3 stop at each hit. Below it, opening the counter
// costs more than the stops it saves.
inline constexpr uint64_t kCountedWalkMinHits = 4;
// A backward search keeps the positions of at most this many of the hits it
// passed (the most recent), so that going on backwards from one of them
// (gdb resuming after each hit of a conditional breakpoint) needs no new
// search: a few MiB at most.
inline constexpr std::size_t kHitListSize = 20000;

// The bound on live automatic checkpoints (each one a process per address
// space of the replayed tree, and the memory its copy-on-write pages come
// to): `--max-checkpoints`, `monitor set max-checkpoints`. The start of
// history and the user's own checkpoints are not counted (the user's have
// their own limit in the server). Two is the least that works: the one a
// walk starts from, and the one it leaves. The most is well under pid_max.
inline constexpr std::size_t kDefaultMaxCheckpoints = 64;
inline constexpr std::size_t kMinMaxCheckpoints = 2;
inline constexpr std::size_t kMaxMaxCheckpoints = 4096;
// Of the limit, at most half sit at event boundaries (spread over the whole
// trace); the most recently made quarter is kept out of the even spreading,
// since the next reverse step most likely starts from one of them.
inline constexpr std::size_t kBoundaryShareDivisor = 2;
inline constexpr std::size_t kRecentShareDivisor = 4;

// The bound on the memory automatic checkpoints hold (their processes'
// proportional set size, /proc/PID/smaps_rollup: a page shared by k
// processes counts 1/k to each): `--max-checkpoint-memory MIB`, `monitor set
// max-checkpoint-memory MIB`; by default a quarter of the machine's memory.
// Measured every so many checkpoints made (reading smaps_rollup walks the
// page tables: too dear for every one) and whenever the stats are asked.
inline constexpr std::size_t kDefaultMemoryShareDivisor = 4;
inline constexpr std::size_t kCheckpointsPerMemoryCheck = 16;

}  // namespace backstep::checkpoint_policy
