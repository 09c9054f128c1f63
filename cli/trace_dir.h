// Where traces live: $BACKSTEP_DIR, else $XDG_DATA_HOME/backstep, else
// ~/.local/share/backstep. Each recording is NAME-N; `latest-trace` links to
// the newest.
#pragma once

#include <string>
#include <vector>

namespace backstep::cli {

std::string trace_root();
// Creates the root if needed (mode 0700, parents too) and picks the first
// free NAME-N for `program`.
std::string new_trace_dir(const std::string& program);
// Points `latest-trace` in the root at `dir`.
void set_latest_trace(const std::string& dir);
// Resolves a TRACE argument: a path, a name inside the root, or (empty) the
// latest trace. Throws std::runtime_error naming what was looked for.
std::string resolve_trace(const std::string& arg);
// Names of the traces in the root, oldest first.
std::vector<std::string> list_traces();

}  // namespace backstep::cli
