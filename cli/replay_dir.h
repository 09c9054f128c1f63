// The private directory `backstep replay` makes for its debugger's
// connection: mode 0700, under $XDG_RUNTIME_DIR when that is a directory of
// this user's that nobody else may write (and short enough for a socket's
// path), else under /tmp. It holds the
// server's Unix socket (so that only this user can reach the server, which
// checks the peer's uid besides) and gdb's command file. It is removed on
// every way out: by the destructor, or by the signal handlers
// (cli/process_cleanup.h).
#pragma once

#include <string>

namespace backstep::cli {

// The gdb commands a replay's gdb sources first: restart, when, and the
// auto-load of the pretty printers of libraries read through "target:".
std::string replay_gdb_commands();

class ReplayDir {
 public:
  ReplayDir();  // throws std::runtime_error
  ~ReplayDir();
  ReplayDir(const ReplayDir&) = delete;
  ReplayDir& operator=(const ReplayDir&) = delete;

  const std::string& path() const { return path_; }
  std::string socket_path() const;
  // Writes gdb's commands (restart, when, the auto-load of libraries'
  // scripts) into the directory; returns the file's path.
  std::string write_gdb_commands() const;

 private:
  std::string path_;
};

}  // namespace backstep::cli
