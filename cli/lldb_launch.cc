#include "cli/lldb_launch.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "engine/trace/reader.h"

namespace backstep::cli {
namespace {

namespace fs = std::filesystem;

// lldb gives up on a reply after its packet timeout; a reverse search over a
// long recording can take minutes, so the session waits this long instead.
constexpr int kPacketTimeoutS = 3600;

// The exec event that gave `choice`'s process its program: the last exec
// of that process up to its start, else the recording's first (event 0:
// a process that only forked runs its parent's program).
trace::Mapping recorded_program(trace::TraceReader& reader, const DebuggeeChoice& choice,
                                const std::string& dir) {
  uint64_t start = ReplayTimeline::start_event(dir, choice);
  std::optional<trace::Event> chosen;
  for (uint64_t n = 0; std::optional<trace::Event> e = reader.next(); ++n) {
    if (n > start) break;
    if (e->kind != trace::EventKind::Exec) continue;
    if (n == 0 || e->tid == choice.pid) chosen = std::move(e);
  }
  if (chosen) {
    // The program is the lowest file mapping at exec (ld.so comes after it).
    for (const trace::Mapping& m : chosen->mappings) {
      if (m.kind == trace::MappingKind::File) return m;
    }
  }
  throw std::runtime_error(dir + ": the recording holds no program file to give lldb");
}

bool on_path(const std::string& name) {
  const char* path = getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t at = 0; at <= dirs.size();) {
    std::size_t end = dirs.find(':', at);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(at, end - at);
    if (!dir.empty() && access((dir + "/" + name).c_str(), X_OK) == 0) return true;
    at = end + 1;
  }
  return false;
}

}  // namespace

std::string lldb_program() {
  if (const char* chosen = getenv("BACKSTEP_LLDB"); chosen && *chosen) return chosen;
  for (const char* name : {"lldb", "lldb-22", "lldb-21", "lldb-20", "lldb-19"}) {
    if (on_path(name)) return name;
  }
  return "lldb";
}

LldbLaunch::LldbLaunch(const std::string& dir, const DebuggeeChoice& choice) {
  trace::TraceReader reader(dir);
  trace::Mapping program = recorded_program(reader, choice, dir);
  std::string copy_from = reader.verified_file_path(program);
  char temp[] = "/tmp/backstep-lldb-XXXXXX";
  if (!mkdtemp(temp)) throw std::runtime_error(std::string("cannot create a temporary directory: ") + strerror(errno));
  temp_dir_ = temp;
  std::string name = fs::path(program.name).filename().string();
  program_ = temp_dir_ + "/" + (name.empty() ? "program" : name);
  // A copy, never a link: lldb and the user may write to it.
  std::error_code ec;
  fs::copy_file(copy_from, program_, fs::copy_options::none, ec);
  if (ec) {
    fs::remove_all(temp_dir_, ec);
    throw std::runtime_error("cannot copy " + copy_from + " for lldb: " + ec.message());
  }
}

LldbLaunch::~LldbLaunch() {
  std::error_code ec;
  fs::remove_all(temp_dir_, ec);
}

std::vector<std::string> LldbLaunch::argv(int port, const Args& user_args) const {
  std::vector<std::string> argv = {
      // -O runs before the target is created, -f creates it (lldb quotes
      // the path itself), -o runs after.
      lldb_program(),
      "-O", "settings set plugin.process.gdb-remote.packet-timeout " + std::to_string(kPacketTimeoutS),
      "-f", program_,
      "-o", "gdb-remote 127.0.0.1:" + std::to_string(port),
  };
  argv.insert(argv.end(), user_args.begin(), user_args.end());
  return argv;
}

}  // namespace backstep::cli
