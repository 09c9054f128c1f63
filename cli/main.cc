// backstep: record a program once, replay it exactly.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <map>

#include "cli/commands.h"
#include "engine/trace/printable.h"

namespace backstep::cli {

// Messages carry text from traces, which are escaped where it is put in
// (trace::printable); this is the net under that: no control byte a message
// might still hold reaches the terminal. Lines stay lines.
void error(const std::string& message) {
  std::fprintf(stderr, "backstep: %s\n", trace::printable(message, SIZE_MAX, trace::Escaping::ControlsOnly).c_str());
}
void warning(const std::string& message) {
  std::fprintf(stderr, "backstep: warning: %s\n", trace::printable(message, SIZE_MAX, trace::Escaping::ControlsOnly).c_str());
}

namespace {

const char kUsage[] =
    "usage: backstep COMMAND [ARGS...]\n"
    "\n"
    "  record [-o DIR] [--compress=zstd|zlib] [--cpuid-faulting] [--no-syscall-buffer]\n"
    "         [--chaos [--chaos-seed N]] [--] PROG [ARGS...]\n"
    "                       run PROG and record it into a trace; --cpuid-faulting\n"
    "                       traps every cpuid (RDRAND hidden; slower in a VM);\n"
    "                       --no-syscall-buffer stops the program at every system\n"
    "                       call (slower; for catch syscall on every call)\n"
    "                       --chaos: threads scheduled at random (slices, order,\n"
    "                       starvation) to make races show; replayed as exactly\n"
    "                       as any recording\n"
    "  record --until-fail [--max-runs N] [--jobs J] [--timeout S] [--fail-if REGEX]\n"
    "         [RECORD-OPTIONS] [--] PROG [ARGS...]\n"
    "                       record PROG again and again until a run fails (non-zero\n"
    "                       exit, a fatal signal, past S seconds, or output matching\n"
    "                       REGEX); keep that run's trace, delete the others\n"
    "  replay [--debugger gdb|lldb] [-p PID | --onfork PID | --onexec PID]\n"
    "         [--max-checkpoints N] [--max-checkpoint-memory MIB] [TRACE] [-- DEBUGGER-ARGS...]\n"
    "                       debug a trace under gdb or lldb, forwards and backwards;\n"
    "                       with a process tree, the first process, or process PID\n"
    "                       from its start (-p: its first exec if it execs, else\n"
    "                       its fork), its fork, or its first exec\n"
    "  replay --autopilot [TRACE]\n"
    "                       replay a trace without a debugger (default: the latest)\n"
    "  serve [--host H [--allow-remote]] --port N | --unix PATH [--once] [--max-clients N]\n"
    "        [--idle-timeout S] [--packet-timeout S] [--process PID | --onfork PID | --onexec PID]\n"
    "        [--max-checkpoints N] [--max-checkpoint-memory MIB] [TRACE]\n"
    "                       serve a trace to gdb/lldb over the remote protocol, to\n"
    "                       this user only; port 0 picks a free one; --unix: a Unix\n"
    "                       socket; a --host other hosts reach needs --allow-remote;\n"
    "                       up to N (4) clients at once,\n"
    "                       each dropped after S (1800) seconds without a request\n"
    "                       or S (20) seconds inside one packet (0: never);\n"
    "                       --max-checkpoints: automatic checkpoints kept (64),\n"
    "                       --max-checkpoint-memory: MiB they hold (RAM/4)\n"
    "  serve --stdio [TRACE]  the same to the one client on stdin (a socket pair):\n"
    "                       gdb's `target extended-remote | backstep serve --stdio TRACE`\n"
    "  dap [--port N [--once]] [-p PID] [--gdb PATH] [TRACE]\n"
    "                       a Debug Adapter Protocol server for IDEs (VS Code,\n"
    "                       CLion) on stdin/stdout, or on 127.0.0.1:N for this\n"
    "                       user: reverse buttons, data breakpoints both ways\n"
    "  ide vscode|clion [--port N] [--output DIR] [--force] [TRACE]\n"
    "                       write IDE configurations for `serve --port N TRACE`\n"
    "                       (VS Code: DIR/launch.json and tasks.json, default\n"
    "                       .vscode; CLion: DIR/backstep-clion.txt) with a copy of\n"
    "                       the recorded program next to them\n"
    "  dump [--stats] [TRACE]  print one line per recorded event (--stats: counts\n"
    "                       of events and of positions, per thread)\n"
    "  ps [TRACE]           list the recorded processes: PID, PPID, EXIT, CMD\n"
    "  ls                   list the traces in the trace directory\n"
    "\n"
    "Traces go to $BACKSTEP_DIR, else $XDG_DATA_HOME/backstep, else ~/.local/share/backstep.\n";

struct Command {
  int (*run)(const Args&);
};

const std::map<std::string, Command> kCommands = {
    {"record", {record_command}},
    {"replay", {replay_command}},
    {"dump", {dump_command}},
    {"ps", {ps_command}},
    {"ls", {ls_command}},
    {"serve", {serve_command}},
    {"ide", {ide_command}},
    {"dap", {dap_command}},
};

}  // namespace
}  // namespace backstep::cli

int main(int argc, char** argv) {
  using namespace backstep::cli;
  // Replay execs this binary as an empty shell whose address space it then
  // replaces; should it ever run, it must do nothing.
  if (argc > 1 && std::strcmp(argv[1], "--backstep-replay-stub") == 0) _exit(kExitFailure);
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
      !std::strcmp(argv[1], "help")) {
    std::fputs(kUsage, argc < 2 ? stderr : stdout);
    return argc < 2 ? kExitUsage : 0;
  }
  if (!std::strcmp(argv[1], "--version")) {
    std::printf("backstep %s\n", BACKSTEP_VERSION);
    return 0;
  }
  auto it = kCommands.find(argv[1]);
  if (it == kCommands.end()) {
    error(std::string("unknown command '") + argv[1] + "'");
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  try {
    return it->second.run(Args(argv + 2, argv + argc));
  } catch (const std::exception& e) {
    error(e.what());
    return kExitFailure;
  }
}
