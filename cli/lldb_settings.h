// What lldb needs told to debug a replay, shared by `replay --debugger
// lldb` (lldb_launch.cc) and the IDE configurations (ide_command.cc).
#pragma once

#include <string>

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

}  // namespace backstep::cli
