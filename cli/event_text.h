// What `backstep dump` prints: the header lines and one line per event. Kept
// apart from the command so that fuzz/ can run it on decoded events (it
// compiles this file with the few engine/core pieces it uses). Every string
// from the trace goes through trace::printable().
#pragma once

#include <string>

#include "engine/trace/event.h"

namespace backstep::cli {

// "# trace DIR: format ...", "# command: ...", "# cwd: ...", each ending in a newline.
std::string header_text(const std::string& dir, const trace::Header& header);

// One event, without its number and tid: "syscall write(0x1, ...) = 6 [...]".
std::string event_text(const trace::Event& event);

}  // namespace backstep::cli
