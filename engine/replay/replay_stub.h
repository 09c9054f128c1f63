// The stub every replayed process execs before replay rebuilds its address
// space from an Exec event: backstep itself, under an argument that makes
// main() exit at once should it ever run (it never does: replay replaces
// the address space at the exec stop, before its first instruction).
#pragma once

#include <limits.h>
#include <unistd.h>

#include <stdexcept>
#include <string>

namespace backstep {

inline constexpr const char* kStubArg = "--backstep-replay-stub";

inline std::string replay_stub_exe() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw std::runtime_error("cannot find backstep's own executable");
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace backstep
