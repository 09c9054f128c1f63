// `backstep ide vscode|clion [--port N] [--output DIR] [--force]
// [--install [--extensions-dir DIR]] [TRACE]`: writes configurations that
// debug TRACE from an IDE, with the recorded program copied next to them (an
// IDE loads the program's symbols from disk; the copy is never a link into
// the trace's files/, which may be hard links to the host's own files).
//
// vscode: DIR (default .vscode) gets launch.json with four configurations:
// `backstep` (backstep dap, with VS Code's reverse buttons; its type comes
// from the extension --install writes, vscode_extension.h), then cppdbg
// through gdb, CodeLLDB and lldb-dap, which connect to `backstep serve
// --port N TRACE`, started by the background task of tasks.json. clion: DIR
// (default .) gets .run/backstep replay.run.xml, a "Remote Debug" run
// configuration whose gdb starts `backstep serve --stdio` itself, the
// ~/.gdbinit fragment backstep.gdbinit, and backstep-clion.txt saying so.
// docs/ide-setup.md says what works in each.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cli/commands.h"
#include "cli/find_program.h"
#include "cli/json_string.h"
#include "cli/lldb_settings.h"
#include "cli/replay_dir.h"
#include "cli/trace_copy.h"
#include "cli/trace_dir.h"
#include "cli/vscode_extension.h"
#include "engine/trace/reader.h"

namespace backstep::cli {
namespace {

namespace fs = std::filesystem;

constexpr int kDefaultPort = 50505;
// Seconds gdb and lldb wait for one reply: a reverse search over a long
// recording can take minutes.
constexpr int kReplyTimeoutS = 3600;

// The program the recording starts with: the first file its first exec maps
// (the dynamic loader comes after it).
std::string program_file(const std::string& dir, std::string& recorded_name) {
  trace::TraceReader reader(dir);
  while (std::optional<trace::Event> e = reader.next()) {
    if (e->kind != trace::EventKind::Exec) continue;
    for (const trace::Mapping& m : e->mappings) {
      if (m.kind != trace::MappingKind::File) continue;
      recorded_name = m.name;
      return reader.verified_file_path(m);
    }
    break;
  }
  throw std::runtime_error(dir + ": the recording holds no program file for the IDE");
}

// Writes `text` to `path`, unless it exists and `force` is false.
void write_file(const fs::path& path, const std::string& text, bool force) {
  if (fs::exists(path) && !force) {
    throw std::runtime_error(path.string() + " exists (--force replaces it)");
  }
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

std::string serve_command_line(const std::string& trace, int port) {
  return "backstep serve --port " + std::to_string(port) + " " + trace;
}

// This backstep, by its absolute path: an IDE's tasks and adapters run
// without the user's shell, and backstep is seldom on their PATH.
std::string self_path() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find backstep's own path: " + ec.message());
  return self.string();
}

// `name` found on PATH, by its absolute path (the name itself when it is not).
std::string on_path(const std::string& name) {
  int err = 0;
  std::string found = find_program(name, err);
  return found.empty() ? name : fs::absolute(found).string();
}

std::string vscode_tasks(const std::string& backstep, const std::string& trace, int port) {
  std::ostringstream j;
  j << "{\n"
    << "  \"version\": \"2.0.0\",\n"
    << "  \"tasks\": [\n"
    << "    {\n"
    << "      \"label\": \"backstep serve\",\n"
    << "      \"detail\": " << json_string("start first: " + serve_command_line(trace, port)) << ",\n"
    << "      \"type\": \"process\",\n"
    << "      \"command\": " << json_string(backstep) << ",\n"
    << "      \"args\": [\"serve\", \"--port\", " << json_string(std::to_string(port)) << ", "
    << json_string(trace) << "],\n"
    << "      \"isBackground\": true,\n"
    << "      \"problemMatcher\": {\n"
    << "        \"owner\": \"backstep\",\n"
    << "        \"pattern\": {\"regexp\": \"^backstep: (error): (.*)$\", \"severity\": 1, \"message\": 2},\n"
    << "        \"background\": {\"activeBegins\": true, \"beginsPattern\": \"^backstep: serving\", "
    << "\"endsPattern\": \"^backstep: serving\"}\n"
    << "      }\n"
    << "    }\n"
    << "  ]\n"
    << "}\n";
  return j.str();
}

std::string vscode_launch(const std::string& program, const std::string& trace, int port,
                          const std::string& gdb_commands) {
  std::string address = "localhost:" + std::to_string(port);
  std::string timeout = std::to_string(kReplyTimeoutS);
  // lldb's signals and directions, as `replay --debugger lldb` sets them.
  std::string lldb_post_run = json_string(lldb_replay_signal_command());
  for (const std::string& command : lldb_direction_commands()) lldb_post_run += ", " + json_string(command);
  std::ostringstream j;
  j << "{\n"
    << "  \"version\": \"0.2.0\",\n"
    << "  \"configurations\": [\n"
    // backstep dap: VS Code's own reverse buttons.
    << vscode_backstep_configuration(trace) << ",\n"
    // cppdbg: gdb through the MI; reverse from the Debug Console.
    << "    {\n"
    << "      \"name\": \"backstep: replay (gdb)\",\n"
    << "      \"type\": \"cppdbg\",\n"
    << "      \"request\": \"launch\",\n"
    << "      \"program\": " << json_string(program) << ",\n"
    << "      \"cwd\": \"${workspaceFolder}\",\n"
    << "      \"MIMode\": \"gdb\",\n"
    << "      \"miDebuggerPath\": " << json_string(on_path("gdb")) << ",\n"
    << "      \"miDebuggerServerAddress\": " << json_string(address) << ",\n"
    << "      \"useExtendedRemote\": true,\n"
    << "      \"stopAtConnect\": true,\n"
    << "      \"setupCommands\": [\n"
    << "        {\"text\": \"set remotetimeout " << timeout << "\"},\n"
    << "        {\"text\": \"set sysroot target:\"},\n"
    << "        {\"text\": \"-enable-pretty-printing\", \"ignoreFailures\": true},\n"
    // Pretty printers of libraries read through target: (libstdc++'s).
    << "        {\"text\": " << json_string("source " + gdb_commands) << "}\n"
    << "      ],\n"
    << "      \"preLaunchTask\": \"backstep serve\"\n"
    << "    },\n"
    // CodeLLDB: lldb, with its reverse buttons.
    << "    {\n"
    << "      \"name\": \"backstep: replay (CodeLLDB)\",\n"
    << "      \"type\": \"lldb\",\n"
    << "      \"request\": \"custom\",\n"
    << "      \"initCommands\": [\"settings set plugin.process.gdb-remote.packet-timeout " << timeout << "\"],\n"
    << "      \"targetCreateCommands\": [" << json_string("target create " + program) << "],\n"
    // CodeLLDB's custom request has no postRunCommands: the signal and
    // direction settings follow the connection in processCreateCommands.
    << "      \"processCreateCommands\": [" << json_string("gdb-remote " + address) << ", " << lldb_post_run
    << "],\n"
    << "      \"reverseDebugging\": true,\n"
    << "      \"preLaunchTask\": \"backstep serve\"\n"
    << "    },\n"
    // lldb-dap: attach to the server (no stepBack: reverse from its console).
    << "    {\n"
    << "      \"name\": \"backstep: replay (lldb-dap)\",\n"
    << "      \"type\": \"lldb-dap\",\n"
    << "      \"request\": \"attach\",\n"
    << "      \"program\": " << json_string(program) << ",\n"
    << "      \"gdb-remote-hostname\": \"localhost\",\n"
    << "      \"gdb-remote-port\": " << port << ",\n"
    << "      \"initCommands\": [\"settings set plugin.process.gdb-remote.packet-timeout " << timeout << "\"],\n"
    << "      \"postRunCommands\": [" << lldb_post_run << "],\n"
    << "      \"preLaunchTask\": \"backstep serve\"\n"
    << "    }\n"
    << "  ]\n"
    << "}\n";
  return j.str();
}

// `text` for an XML attribute value.
std::string xml_attribute(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\n': out += "&#10;"; break;
      default: out += c;
    }
  }
  return out;
}

// The command gdb runs as its remote target: the server on its stdin and
// stdout (`serve --stdio`), so that nothing needs to be started first.
// `word` for sh -c (gdb runs a pipe target's command with it).
std::string shell_word(const std::string& word) {
  bool plain = !word.empty() && word.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                       "0123456789/_.-+=:,@%") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string clion_remote_command(const std::string& backstep, const std::string& trace) {
  return "| " + shell_word(backstep) + " serve --stdio " + shell_word(trace);
}

// CLion's "Remote Debug" run configuration (.run/NAME.run.xml, which CLion
// reads from the project): gdb runs the server itself through a pipe.
std::string clion_run_configuration(const std::string& backstep, const std::string& program, const std::string& trace,
                                    const std::string& gdb) {
  std::ostringstream x;
  x << "<component name=\"ProjectRunConfigurationManager\">\n"
    << "  <configuration default=\"false\" name=\"backstep replay\" type=\"CLion_Remote\" "
    << "factoryName=\"Remote Debug\" version=\"1\"\n"
    << "                 remoteCommand=\"" << xml_attribute(clion_remote_command(backstep, trace)) << "\"\n"
    << "                 symbolFile=\"" << xml_attribute(program) << "\" sysroot=\"target:\">\n"
    << "    <debugger kind=\"GDB\" isBundled=\"false\">" << xml_attribute(gdb) << "</debugger>\n"
    << "    <method v=\"2\" />\n"
    << "  </configuration>\n"
    << "</component>\n";
  return x.str();
}

// What CLion's gdb needs that a run configuration cannot say: the reply
// timeout of a long reverse search, the pretty printers of libraries read
// from the trace, restart and when; and the reverse commands, listed.
std::string clion_gdbinit() {
  return "# backstep: for CLion's gdb. Add `source THIS-FILE` to ~/.gdbinit (CLion's gdb reads it).\n"
         "# Reverse execution, in CLion's GDB console (CLion has no reverse buttons):\n"
         "#   reverse-continue (rc)   back to the previous breakpoint or watchpoint hit\n"
         "#   reverse-next (rn)       a line back, over calls\n"
         "#   reverse-step (rs)       a line back, into calls\n"
         "#   reverse-finish          back to the call of this function\n"
         "#   reverse-stepi (rsi)     an instruction back\n"
         "# CLion's Step, Resume and Run to Cursor then go forwards from there.\n"
         "set remotetimeout " +
         std::to_string(kReplyTimeoutS) + "\n" + replay_gdb_commands();
}

std::string clion_settings(const std::string& backstep, const std::string& trace, const fs::path& run_file,
                           const fs::path& gdbinit) {
  std::ostringstream t;
  t << "backstep: debugging " << trace << " from CLion\n\n"
    << "1. " << run_file.string() << " is a \"Remote Debug\" run configuration, \"backstep replay\":\n"
    << "   CLion lists it under Run | Edit Configurations once this folder is the project's\n"
    << "   (or copy it into the project's .run/). Its 'target remote' args run the server:\n"
    << "     " << clion_remote_command(backstep, trace) << "\n"
    << "2. Add to ~/.gdbinit (CLion runs no per-configuration gdb commands):\n"
    << "     source " << gdbinit.string() << "\n"
    << "3. Debug \"backstep replay\". Reverse: the GDB console of the Debug window:\n"
    << "   reverse-continue, reverse-next, reverse-step, reverse-finish, reverse-stepi.\n";
  return t.str();
}

int usage() {
  error("usage: backstep ide vscode|clion [--port N] [--output DIR] [--force] [--install [--extensions-dir DIR]] "
        "[TRACE]");
  return kExitUsage;
}

}  // namespace

int ide_command(const Args& args) {
  if (args.empty() || (args[0] != "vscode" && args[0] != "clion")) return usage();
  const std::string ide = args[0];
  int port = kDefaultPort;
  std::string output = ide == "vscode" ? ".vscode" : ".";
  std::string trace_arg;
  bool force = false;
  bool install = false;
  std::string extensions_dir;
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& a = args[i];
    if ((a == "--port" || a == "--output" || a == "--extensions-dir") && i + 1 >= args.size()) return usage();
    if (a == "--port") {
      char* end = nullptr;
      long p = std::strtol(args[++i].c_str(), &end, 10);
      if (*end || p < 1 || p > 65535) {
        error("--port takes a port from 1 to 65535, not '" + args[i] + "'");
        return kExitUsage;
      }
      port = static_cast<int>(p);
    } else if (a == "--output") {
      output = args[++i];
    } else if (a == "--force") {
      force = true;
    } else if (a == "--install") {
      install = true;
    } else if (a == "--extensions-dir") {
      extensions_dir = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      return usage();
    } else if (trace_arg.empty()) {
      trace_arg = a;
    } else {
      return usage();
    }
  }
  if ((install || !extensions_dir.empty()) && ide != "vscode") {
    error("--install and --extensions-dir are for vscode (CLion needs no extension)");
    return kExitUsage;
  }
  if (!extensions_dir.empty() && !install) {
    error("--extensions-dir goes with --install");
    return kExitUsage;
  }
  try {
    std::string trace = fs::absolute(resolve_trace(trace_arg)).string();
    std::string recorded;
    std::string source = program_file(trace, recorded);
    fs::path out = fs::absolute(output).lexically_normal();
    for (const char* file : {"launch.json", "tasks.json", "backstep-clion.txt", ".run/backstep replay.run.xml"}) {
      bool clion_file = std::string(file) == "backstep-clion.txt" || std::string(file).rfind(".run/", 0) == 0;
      bool ours = ide == "vscode" ? !clion_file : clion_file;
      if (ours && fs::exists(out / file) && !force) {
        throw std::runtime_error((out / file).string() + " exists (--force replaces it)");
      }
    }
    fs::create_directories(out);
    // The recorded name is the trace's: ".." would put the copy above the folder.
    std::string name = fs::path(recorded).filename().string();
    fs::path program = out / "backstep-program" / (name.empty() || name == "." || name == ".." ? "program" : name);
    fs::create_directories(program.parent_path());
    // A copy, never a link: the IDE and its debugger may write to it (the
    // trace's own copy is read-only, so is this one at first).
    if (fs::exists(program)) {
      fs::permissions(program, fs::perms::owner_write, fs::perm_options::add);
      fs::remove(program);
    }
    copy_trace_file(source, program.string());
    fs::permissions(program, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::add);
    if (ide == "vscode") {
      std::string backstep = self_path();
      fs::path gdb_commands = out / "backstep.gdb";
      write_file(out / "launch.json", vscode_launch(program.string(), trace, port, gdb_commands.string()), force);
      write_file(out / "tasks.json", vscode_tasks(backstep, trace, port), force);
      write_file(gdb_commands, replay_gdb_commands(), true);
      if (install) {
        std::string folder =
            install_vscode_extension(extensions_dir.empty() ? default_vscode_extensions_dir() : extensions_dir, backstep);
        std::printf("backstep: installed the VS Code extension for the debug type \"backstep\" in %s\n", folder.c_str());
      }
      std::printf("backstep: wrote %s and %s for %s\n", (out / "launch.json").c_str(), (out / "tasks.json").c_str(),
                  trace.c_str());
    } else {
      std::string backstep = self_path();
      fs::path run_file = out / ".run" / "backstep replay.run.xml";
      fs::path gdbinit = out / "backstep.gdbinit";
      fs::create_directories(run_file.parent_path());
      write_file(run_file, clion_run_configuration(backstep, program.string(), trace, on_path("gdb")), force);
      write_file(gdbinit, clion_gdbinit(), true);
      write_file(out / "backstep-clion.txt", clion_settings(backstep, trace, run_file, gdbinit), force);
      std::printf("backstep: wrote %s, %s and %s for %s\n", run_file.c_str(), gdbinit.c_str(),
                  (out / "backstep-clion.txt").c_str(), trace.c_str());
    }
    if (ide == "vscode") {
      std::printf("  \"backstep: replay (reverse buttons)\" needs no server; for the others, start it first: %s\n",
                  serve_command_line(trace, port).c_str());
    } else {
      std::printf("  gdb starts the server itself; add to ~/.gdbinit: source %s\n",
                  (out / "backstep.gdbinit").c_str());
    }
    return 0;
  } catch (const std::exception& e) {
    error(e.what());
    return kExitFailure;
  }
}

}  // namespace backstep::cli
