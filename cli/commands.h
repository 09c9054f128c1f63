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
// Starts the server and gdb connected to it, for process `debuggee_pid`
// from `debuggee_from` (a DebuggeeChoice; 0: the first process); returns
// gdb's exit status.
struct LaunchChoice {
  uint32_t pid = 0;
  int from = 0;  // DebuggeeChoice::From
  std::size_t max_checkpoints = 0;  // 0: the timeline's default
};
// `--max-checkpoints N` of `replay` and `serve`: if args[i] is it, reads N
// into `out` (advancing i) and returns 1; -1 after printing why N is bad;
// 0 for other arguments.
int read_max_checkpoints(const Args& args, std::size_t& i, std::size_t& out);
int launch_gdb(const std::string& trace_arg, const Args& gdb_args, LaunchChoice choice = {});

// Exit statuses of backstep itself (the program's own statuses pass through).
inline constexpr int kExitUsage = 2;
inline constexpr int kExitFailure = 125;   // backstep could not do what was asked
inline constexpr int kExitNotFound = 127;  // the program to record does not exist

// Prints "backstep: <message>" on stderr.
void error(const std::string& message);
void warning(const std::string& message);

}  // namespace backstep::cli
