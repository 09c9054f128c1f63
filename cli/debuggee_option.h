// The options that choose which process of a recorded tree the debugger
// gets: -p/--process PID (at its start: its first exec if it has one, else
// its fork), --onfork PID, --onexec PID. Shared by `replay` and `serve`
// (where -p stays --port).
#pragma once

#include <string>

#include "cli/commands.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep::cli {

enum class OptionRead { NotMine, Read, Bad };

// If args[i] is one of the options (`short_p`: -p is --process), reads its
// value into `choice` (advancing i) and returns Read; Bad after printing
// why; NotMine for other arguments.
OptionRead read_debuggee_option(const Args& args, std::size_t& i, bool short_p, DebuggeeChoice& choice);

// Checks `choice` against the trace; prints why and returns false if it
// names no process of it.
bool check_debuggee(const std::string& dir, const DebuggeeChoice& choice);

}  // namespace backstep::cli
