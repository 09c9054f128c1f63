#pragma once

#include <stdexcept>
#include <string>

namespace backstep::trace {

// A trace that cannot be read: the message names the file and, where known,
// the event at which it breaks.
class TraceError : public std::runtime_error {
 public:
  explicit TraceError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace backstep::trace
