// For tests over tests/programs/loop_target.c: the state at a stop, hashed
// (the registers, the loop's globals and the top of the stack), and those
// states at each hit of tick() in a plain forward replay, to compare where
// other ways of getting there land.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/timeline/replay_timeline.h"
#include "tests/support/timeline_steps.h"

namespace backstep::testing {

inline uint64_t loop_state_digest(ReplayTimeline& t, uint64_t total, uint64_t history) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](const std::vector<uint8_t>& bytes) {
    for (uint8_t b : bytes) h = (h ^ b) * 1099511628211ull;
  };
  Registers regs = t.registers(0);
  user_regs_struct raw = regs.raw();
  std::vector<uint8_t> reg_bytes(sizeof(raw));
  std::memcpy(reg_bytes.data(), &raw, sizeof(raw));
  mix(reg_bytes);
  mix(t.read_memory(total, 8));
  mix(t.read_memory(history, 64 * 8));
  mix(t.read_memory(regs.sp(), 256));
  return h;
}

// loop_state_digest() at each of the first `hits` hits of tick (whose
// argument is the hit's number), continuing forward from the start.
inline std::vector<uint64_t> forward_hit_digests(const std::string& trace, uint64_t tick, uint64_t total,
                                                 uint64_t history, int hits) {
  std::vector<uint64_t> out;
  ReplayTimeline fresh(trace);
  fresh.set_breakpoint(tick, TrapKind::Software);
  for (int k = 0; k < hits; ++k) {
    BOOST_REQUIRE(go(fresh, RunDirection::Forward).kind == TargetStop::Kind::Breakpoint);
    BOOST_REQUIRE_EQUAL(fresh.registers(0).raw().rdi, static_cast<uint64_t>(k));
    out.push_back(loop_state_digest(fresh, total, history));
  }
  return out;
}

}  // namespace backstep::testing
