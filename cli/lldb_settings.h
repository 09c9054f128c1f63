// What lldb needs told to debug a replay, shared by `replay --debugger
// lldb` (lldb_launch.cc) and the IDE configurations (ide_command.cc).
#pragma once

#include <string>
#include <vector>

namespace backstep::cli {

// lldb refuses to resume in reverse from a stop at a signal it would pass
// to the program ("can't deliver signals while running in reverse"), which
// is every signal it stops at by default: a `process continue --reverse`
// from a crash would need `process handle SIGSEGV --pass false` first. A
// replay delivers the recorded signals whatever the client asks, so lldb
// is told to pass none of those (it still stops and notifies as before).
inline std::string lldb_replay_signal_command() {
  return "process handle --pass false SIGHUP SIGQUIT SIGILL SIGABRT SIGBUS SIGFPE SIGUSR1 SIGSEGV SIGUSR2 SIGPIPE "
         "SIGTERM SIGSTKFLT SIGTSTP SIGTTIN SIGTTOU SIGURG SIGXCPU SIGXFSZ SIGVTALRM SIGIO SIGPWR SIGSYS";
}

// lldb 22 keeps the direction of its last `process continue --reverse`
// (or -F) for the whole process: a later `continue`, and a `thread step-out`
// (which runs every thread), go backwards too, where gdb goes forwards
// after a `reverse-continue`. These aliases give lldb gdb's rule: `c`,
// `continue` and `finish` always go forwards; `rc` and `reverse-continue`
// go backwards. `process continue` and `thread step-out` typed in full keep
// lldb's own rule (`thread step-out -m this-thread` goes forwards).
inline std::vector<std::string> lldb_direction_commands() {
  return {
      "command unalias c",        "command alias c process continue -F",
      "command unalias continue", "command alias continue process continue -F",
      "command unalias finish",   "command alias finish thread step-out -m this-thread",
      "command alias rc process continue -R",
      "command alias reverse-continue process continue -R",
  };
}

}  // namespace backstep::cli
