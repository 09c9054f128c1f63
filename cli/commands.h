// The sub-commands of `backstep`. Each returns the process exit status.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace backstep::cli {

using Args = std::vector<std::string>;

int record_command(const Args& args);
int replay_command(const Args& args);
int dump_command(const Args& args);
int ps_command(const Args& args);
int ls_command(const Args& args);
int serve_command(const Args& args);
int ide_command(const Args& args);
int dap_command(const Args& args);
// Starts the server and a debugger (gdb or lldb) connected to it, for
// process `pid` from `from` (a DebuggeeChoice; 0: the first process);
// returns the debugger's exit status. `debugger_args` go after the
// launcher's own.
// `--max-checkpoints N` and `--max-checkpoint-memory MIB` of `replay` and
// `serve` (0: the timeline's default).
struct CheckpointBounds {
  std::size_t count = 0;
  uint64_t memory_mib = 0;
};
struct LaunchChoice {
  uint32_t pid = 0;
  int from = 0;  // DebuggeeChoice::From
  CheckpointBounds checkpoints;
};
// If args[i] is one of the checkpoint bounds' options, reads its value into
// `out` (advancing i) and returns 1; -1 after printing why the value is
// bad; 0 for other arguments.
int read_checkpoint_bound(const Args& args, std::size_t& i, CheckpointBounds& out);
enum class Debugger { Gdb, Lldb };
int launch_debugger(const std::string& trace_arg, const Args& debugger_args, LaunchChoice choice = {},
                    Debugger debugger = Debugger::Gdb);

// Exit statuses of backstep itself (the program's own statuses pass through).
inline constexpr int kExitUsage = 2;
inline constexpr int kExitFailure = 125;   // backstep could not do what was asked
inline constexpr int kExitNotFound = 127;  // the program to record does not exist

// Prints "backstep: <message>" on stderr.
void error(const std::string& message);
void warning(const std::string& message);

}  // namespace backstep::cli
