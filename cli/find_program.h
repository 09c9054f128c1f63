// A program by name, as execvp finds it: a path with a slash as it is, else
// the first executable of that name in $PATH's directories. `record` runs
// PROG so; `ide` and lldb's launch name the debuggers they find so.
#pragma once

#include <string>

namespace backstep::cli {

// The program's path; empty, with `err` set (ENOENT, EACCES, EISDIR), if
// there is no such executable.
std::string find_program(const std::string& prog, int& err);

}  // namespace backstep::cli
