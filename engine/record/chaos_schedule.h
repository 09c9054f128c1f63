// `record --chaos`: the scheduling decisions the recorder makes anyway (which
// thread runs next, how long it runs before it is handed over, whether it is
// passed over for a while), made at random, so that a race that needs an
// unusual interleaving to show shows within a few recordings. It changes
// only which legal schedule is recorded: the replay follows the trace, as
// for any other. The seed starts the generator; the choices also depend on
// timing (when a slice ends, when a call returns), so a seed names the
// generator, not the schedule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>

namespace backstep {

class ChaosSchedule {
 public:
  explicit ChaosSchedule(uint64_t seed) : rng_(seed) {}

  // A running thread's slice: log-uniform from 0.5 ms to 100 ms, so that
  // very short slices (hand-overs at almost any instruction, through forced
  // positions) and long ones (a thread far ahead of the others) both come.
  uint64_t slice_ns();
  // At a point where the recorder could hand over (a system call's exit),
  // whether to do so before the slice ends: one time in eight.
  bool hand_over_early();
  // How long a thread the scheduler just picked is passed over once it hands
  // over, while others can run: usually not at all, one time in sixteen for
  // 20 to 500 ms (a thread starved, as a loaded machine may starve it).
  uint64_t starvation_ns();
  // Whether a thread's next hand-over in a loop is at the instruction where
  // it happens to be interrupted (a position named by the state's digest)
  // rather than at the instruction of its last hand-over, counted
  // (counted_handover.cc): one time in two, so that the points where
  // threads are cut vary, inside a read-modify-write as anywhere else.
  bool hand_over_anywhere();
  // Where the scheduler starts looking among `n` candidate threads (in
  // place of the one after the last that ran).
  std::size_t first_candidate(std::size_t n);

 private:
  std::mt19937_64 rng_;
};

}  // namespace backstep
