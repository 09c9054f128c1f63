#include "cli/trace_dir.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace backstep::cli {
namespace fs = std::filesystem;

std::string trace_root() {
  if (const char* d = std::getenv("BACKSTEP_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/backstep";
  const char* home = std::getenv("HOME");
  return std::string(home && *home ? home : "/tmp") + "/.local/share/backstep";
}

// Like `mkdir -p`, but every directory it creates is private (0700): traces
// hold the program's memory, input and environment. Existing directories
// are left as they are.
static void make_private_dirs(const std::string& root) {
  fs::path path;
  for (const fs::path& part : fs::path(root)) {
    path /= part;
    if (::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) continue;
    throw std::runtime_error("cannot create the trace directory " + path.string() + ": " + std::strerror(errno));
  }
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    throw std::runtime_error("cannot use the trace directory " + root + ": not a directory");
}

std::string new_trace_dir(const std::string& program) {
  std::string root = trace_root();
  make_private_dirs(root);
  // The store that lets the root's traces share their copies of mapped
  // files (engine/trace/shared_files.h); private to its owner. Without it
  // each trace keeps its own copies, which is correct too.
  mkdir((root + "/.backstep-files").c_str(), 0700);
  std::string base = fs::path(program).filename().string();
  if (base.empty()) base = "trace";
  for (int n = 0;; ++n) {
    std::string dir = root + "/" + base + "-" + std::to_string(n);
    if (!fs::exists(fs::symlink_status(dir))) return dir;
  }
}

void set_latest_trace(const std::string& dir) {
  std::string root = trace_root();
  std::string link = root + "/latest-trace";
  std::string tmp = link + ".tmp" + std::to_string(getpid());
  std::string target = fs::path(dir).filename().string();
  unlink(tmp.c_str());
  if (symlink(target.c_str(), tmp.c_str()) == 0) {
    if (rename(tmp.c_str(), link.c_str()) != 0) unlink(tmp.c_str());
  }
}

static bool is_trace(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p / "header", ec);
}

std::string resolve_trace(const std::string& arg) {
  std::string root = trace_root();
  if (arg.empty()) {
    fs::path latest = fs::path(root) / "latest-trace";
    std::error_code ec;
    if (!fs::exists(latest, ec)) {
      throw std::runtime_error("no trace given and no latest trace in " + root +
                               " (record one with `backstep record PROG`)");
    }
    return fs::canonical(latest, ec).string();
  }
  std::error_code ec;
  if (fs::exists(arg, ec)) return arg;
  fs::path in_root = fs::path(root) / arg;
  if (fs::exists(in_root, ec)) return in_root.string();
  throw std::runtime_error("no trace at '" + arg + "' (nor in " + root + ")");
}

std::vector<std::string> list_traces() {
  std::vector<std::pair<fs::file_time_type, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(trace_root(), ec)) {
    if (entry.is_symlink() || !is_trace(entry.path())) continue;
    found.emplace_back(fs::last_write_time(entry.path() / "header", ec), entry.path().filename().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto& f : found) names.push_back(f.second);
  return names;
}

}  // namespace backstep::cli
