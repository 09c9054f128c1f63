// What `replay --debugger lldb` runs: lldb, connected to the server, with
// the recorded program loaded first from a private copy of the trace's file
// (lldb does not fetch the executable over the connection, and nothing may
// write into a trace's files/, whose copies can be hard links to the
// host's own files).
#pragma once

#include <string>
#include <vector>

#include "cli/commands.h"
#include "engine/timeline/replay_timeline.h"

namespace backstep::cli {

class LldbLaunch {
 public:
  // Copies the program that `choice` starts with, and the libraries of the
  // recording, out of trace `dir` into a fresh temporary directory
  // ($TMPDIR/backstep-lldb-XXXXXX, /tmp without TMPDIR), which the signal
  // handlers of cli/process_cleanup.h remove too. Throws
  // std::runtime_error (trace::TraceError for a damaged trace).
  LldbLaunch(const std::string& dir, const DebuggeeChoice& choice);
  ~LldbLaunch();  // removes the copy
  LldbLaunch(const LldbLaunch&) = delete;
  LldbLaunch& operator=(const LldbLaunch&) = delete;

  // lldb's argv: the program, the connection to the server's Unix socket
  // at `socket`, then `user_args`.
  std::vector<std::string> argv(const std::string& socket, const Args& user_args) const;

 private:
  void copy_files(const std::string& dir, const DebuggeeChoice& choice);

  std::string temp_dir_;
  std::string program_;  // the copy
  std::string sysroot_;  // the libraries' copies, by their recorded paths
  std::string exec_hook_;  // the stop hook's Python module (lldb_exec_hook.h)
};

// The lldb to run: $BACKSTEP_LLDB, else the first of lldb, lldb-22, ...
// lldb-19 on PATH ("lldb" when none is: exec then says it is missing).
std::string lldb_program();

}  // namespace backstep::cli
