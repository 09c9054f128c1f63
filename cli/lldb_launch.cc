#include "cli/lldb_launch.h"
#include "cli/lldb_settings.h"
#include "cli/find_program.h"
#include "cli/lldb_exec_hook.h"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "cli/process_cleanup.h"
#include "cli/remove_tree.h"
#include "cli/trace_copy.h"
#include "engine/trace/reader.h"

namespace backstep::cli {
namespace {

namespace fs = std::filesystem;

// lldb gives up on a reply after its packet timeout; a reverse search over a
// long recording can take minutes, so the session waits this long instead.
constexpr int kPacketTimeoutS = 3600;

bool on_path(const std::string& name) {
  int err = 0;
  return !find_program(name, err).empty();
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path);
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
  const char* tmp = getenv("TMPDIR");
  std::string temp = std::string(tmp && *tmp ? tmp : "/tmp") + "/backstep-lldb-XXXXXX";
  if (!mkdtemp(temp.data())) {
    throw std::runtime_error("cannot create a temporary directory " + temp + ": " + strerror(errno));
  }
  temp_dir_ = temp;
  remove_on_signals(temp_dir_);
  try {
    copy_files(dir, choice);
  } catch (...) {
    remove_tree(temp_dir_.c_str());
    forget_on_signals(temp_dir_);
    throw;
  }
}

void LldbLaunch::copy_files(const std::string& dir, const DebuggeeChoice& choice) {
  // The program of `choice`'s process at its start, as replay gives it
  // (each process runs its creator's program until it execs its own): the
  // lowest file mapping of that exec (ld.so comes after it).
  trace::TraceReader reader(dir);
  uint64_t start = ReplayTimeline::start_event(dir, choice);
  std::map<uint32_t, uint32_t> process_of;  // tid -> pid
  std::map<uint32_t, trace::Mapping> program_of;  // pid -> its program
  std::map<std::string, trace::Mapping> files;  // every mapped file, by recorded path
  std::map<std::string, trace::Mapping> execs;  // every exec'd program, by recorded path
  uint32_t first = 0;
  for (uint64_t n = 0; std::optional<trace::Event> e = reader.next(); ++n) {
    for (const trace::Mapping& m : e->mappings) {
      if (m.kind == trace::MappingKind::File) files.emplace(m.name, m);
    }
    // An exec's program: its first file mapping.
    const trace::Mapping* exec_program = nullptr;
    if (e->kind == trace::EventKind::Exec) {
      for (const trace::Mapping& m : e->mappings) {
        if (m.kind != trace::MappingKind::File) continue;
        exec_program = &m;
        execs.emplace(m.name, m);
        break;
      }
    }
    if (n > start) continue;
    auto creator = process_of.find(static_cast<uint32_t>(e->status));
    switch (e->kind) {
      case trace::EventKind::Exec: {
        if (n == 0) first = process_of[e->tid] = e->tid;
        uint32_t pid = process_of.count(e->tid) ? process_of[e->tid] : e->tid;
        if (exec_program) program_of[pid] = *exec_program;
        break;
      }
      case trace::EventKind::ThreadStart:
        if (creator != process_of.end()) process_of[e->tid] = creator->second;
        break;
      case trace::EventKind::ProcessStart:
        process_of[e->tid] = e->tid;
        if (creator != process_of.end() && program_of.count(creator->second)) {
          program_of[e->tid] = program_of[creator->second];
        }
        break;
      default:
        break;
    }
  }
  auto chosen = program_of.find(choice.pid != 0 ? choice.pid : first);
  if (chosen == program_of.end()) throw std::runtime_error(dir + ": the recording holds no program file to give lldb");
  const trace::Mapping* program = &chosen->second;
  std::string name = fs::path(program->name).filename().string();
  program_ = temp_dir_ + "/" + (name.empty() || name == "." || name == ".." ? "program" : name);
  copy_trace_file(reader.verified_file_path(*program), program_);

  // The libraries, by their recorded paths under a sysroot that lldb
  // searches first: lldb reads libraries from disk, and this host's may
  // differ from the recording's (gdb reads them from the trace instead).
  sysroot_ = temp_dir_ + "/sysroot";
  for (const auto& [path, m] : files) {
    // The recorded path names the copy's place under the sysroot: one that
    // would climb out of it ("/../../home/you/.bashrc") is skipped.
    if (!is_plain_absolute_path(path) || path == program->name) continue;
    std::string copy = reader.verified_file_path(m);
    if (is_shared_object(copy)) copy_trace_file(copy, sysroot_ + path);
  }
  // Every program a process execs, for the stop hook that gives lldb the
  // new one at each exec (lldb_exec_hook.h).
  std::map<std::string, std::string> copies = {{program->name, program_}};
  for (const auto& [path, m] : execs) {
    if (path == program->name || !is_plain_absolute_path(path)) continue;
    std::string copy = sysroot_ + path;
    if (!fs::exists(copy)) copy_trace_file(reader.verified_file_path(m), copy);
    copies.emplace(path, copy);
  }
  exec_hook_ = temp_dir_ + "/backstep_exec.py";
  write_file(exec_hook_, lldb_exec_hook_module(copies, sysroot_));
  // The dynamic linker names libraries by the paths it opened (/lib/...),
  // the kernel by the resolved ones (/usr/lib/...): on a merged-/usr host
  // the first are links to the second.
  for (const char* top : {"lib", "lib64", "lib32", "libx32", "bin", "sbin"}) {
    std::error_code ec;
    fs::path alias = fs::path(sysroot_) / top;
    if (fs::is_directory(fs::path(sysroot_) / "usr" / top, ec) && !fs::exists(alias, ec)) {
      fs::create_directory_symlink(fs::path("usr") / top, alias, ec);
    }
  }
}

LldbLaunch::~LldbLaunch() {
  remove_tree(temp_dir_.c_str());
  forget_on_signals(temp_dir_);
}

std::vector<std::string> LldbLaunch::argv(const std::string& socket, const Args& user_args) const {
  std::vector<std::string> argv = {
      // -O runs before the target is created, -f creates it (lldb quotes
      // the path itself), -o runs after.
      lldb_program(),
      "-O", "settings set plugin.process.gdb-remote.packet-timeout " + std::to_string(kPacketTimeoutS),
      "-f", program_,
      "-o", "target modules search-paths add / " + sysroot_ + "/",
      // `gdb-remote` takes host:port only; `process connect` takes a URL.
      "-o", "process connect -p gdb-remote unix-connect://" + socket,
      "-o", lldb_replay_signal_command(),
      "-o", "command script import \"" + exec_hook_ + "\"",
      "-o", "target stop-hook add -P backstep_exec.ExecHook",
  };
  for (const std::string& command : lldb_direction_commands()) {
    argv.push_back("-o");
    argv.push_back(command);
  }
  argv.insert(argv.end(), user_args.begin(), user_args.end());
  return argv;
}

}  // namespace backstep::cli
