#include "engine/record/chaos_schedule.h"

#include <cmath>

namespace backstep {

uint64_t ChaosSchedule::slice_ns() {
  std::uniform_real_distribution<double> exponent(std::log(500'000.0), std::log(100'000'000.0));
  return static_cast<uint64_t>(std::exp(exponent(rng_)));
}

bool ChaosSchedule::hand_over_early() { return std::uniform_int_distribution<int>(0, 7)(rng_) == 0; }

uint64_t ChaosSchedule::starvation_ns() {
  if (std::uniform_int_distribution<int>(0, 15)(rng_) != 0) return 0;
  return std::uniform_int_distribution<uint64_t>(20'000'000, 500'000'000)(rng_);
}

bool ChaosSchedule::hand_over_anywhere() { return std::uniform_int_distribution<int>(0, 1)(rng_) == 0; }

std::size_t ChaosSchedule::first_candidate(std::size_t n) {
  return n == 0 ? 0 : std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
}

}  // namespace backstep
