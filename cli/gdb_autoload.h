// gdb commands, given to the gdb that `backstep replay` starts, that load
// the auto-load scripts (libstdc++'s pretty printers and xmethods, ...) of
// libraries gdb reads from the target. gdb looks for a library's
// `<path>-gdb.py` under its data directory's auto-load tree by the file's
// local path; a library read through the remote protocol has a `target:`
// path, so gdb finds none. When this host has the same file (the same GNU
// build id) at that path, its script is sourced, as a local gdb would.
#pragma once

namespace backstep {

const char* gdb_autoload_commands();

}  // namespace backstep
