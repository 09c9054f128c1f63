// For tests that drive a ReplayTimeline: a resume in one call, a value read
// from the replayed memory, a symbol that must exist.
#pragma once

#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/timeline/replay_timeline.h"
#include "tests/support/recording.h"

namespace backstep::testing {

inline TargetStop go(ReplayTimeline& t, RunDirection dir, ResumeRequest::How how = ResumeRequest::How::Continue,
                     int signal = 0) {
  ResumeRequest r;
  r.direction = dir;
  r.how = how;
  r.signal = signal;
  return t.resume(r, nullptr);
}

// sizeof(T) bytes at `addr`, as the debugger reads them.
template <typename T>
T read_value(ReplayTimeline& t, uint64_t addr) {
  std::vector<uint8_t> bytes = t.read_memory(addr, sizeof(T));
  BOOST_REQUIRE_EQUAL(bytes.size(), sizeof(T));
  T v;
  std::memcpy(&v, bytes.data(), sizeof(T));
  return v;
}

inline uint64_t require_symbol(const std::string& path, const std::string& name) {
  uint64_t found = symbol_address(path, name);
  BOOST_REQUIRE_MESSAGE(found, "no symbol " << name << " in " << path);
  return found;
}

}  // namespace backstep::testing
