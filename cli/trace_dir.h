// Where traces live: $BACKSTEP_DIR, else $XDG_DATA_HOME/backstep, else
// $HOME/.local/share/backstep, else (HOME unset) the same under the password
// database's home directory; never a shared place like /tmp. Each recording
// is NAME-N; `latest-trace` links to the newest. The root and every trace
// directory used must be owned by the user and writable by no one else.
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
// latest trace. Throws std::runtime_error naming what was looked for, or the
// directory refused (another user's, or writable by others) and why.
std::string resolve_trace(const std::string& arg);
// Names of the traces in the root, oldest first. Throws if the root is refused.
std::vector<std::string> list_traces();

}  // namespace backstep::cli
