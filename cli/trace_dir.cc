// The trace root and the traces in it. A directory that someone else owns
// or can write is never used: whoever controls it controls what `replay`
// reads (a trace is the program's whole memory and input) and where
// `record` writes the user's program memory, input and environment.
#include "cli/trace_dir.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "engine/trace/printable.h"

namespace backstep::cli {
namespace fs = std::filesystem;

namespace {

constexpr const char* kLatestLink = "latest-trace";

std::string user_name(uid_t uid) {
  struct passwd pw;
  struct passwd* found = nullptr;
  char buf[4096];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != nullptr)
    return "uid " + std::to_string(uid) + " (" + trace::printable(found->pw_name, 64) + ")";
  return "uid " + std::to_string(uid);
}

std::string mode_text(mode_t mode) {
  char b[16];
  std::snprintf(b, sizeof b, "%04o", static_cast<unsigned>(mode & 07777));
  return b;
}

// The home directory of the password database's entry for us, or "".
std::string passwd_home() {
  struct passwd pw;
  struct passwd* found = nullptr;
  char buf[4096];
  if (getpwuid_r(geteuid(), &pw, buf, sizeof buf, &found) != 0 || found == nullptr || found->pw_dir == nullptr)
    return "";
  std::string home = found->pw_dir;
  return !home.empty() && home[0] == '/' ? home : "";
}

// Throws unless `path` (followed if it is a link: the user may have made
// the root one) is a directory of ours that no one else can write.
// `what` names it in the message: "the trace root", "the trace directory".
void require_ours(const std::string& path, const std::string& what) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    throw std::runtime_error("cannot use " + what + " " + trace::printable(path) + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode))
    throw std::runtime_error("cannot use " + what + " " + trace::printable(path) + ": not a directory");
  if (st.st_uid != ::geteuid())
    throw std::runtime_error("refusing " + what + " " + trace::printable(path) + ": it is owned by " +
                             user_name(st.st_uid) + ", not by you (" + user_name(::geteuid()) +
                             "); set BACKSTEP_DIR to a directory of yours");
  if (st.st_mode & (S_IWGRP | S_IWOTH))
    throw std::runtime_error("refusing " + what + " " + trace::printable(path) + ": others can write it (mode " +
                             mode_text(st.st_mode) + "); make it private (chmod go-w) or set BACKSTEP_DIR");
}

bool is_directory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string trace_root() {
  if (const char* d = std::getenv("BACKSTEP_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x) return std::string(x) + "/backstep";
  const char* home = std::getenv("HOME");
  if (home && *home) return std::string(home) + "/.local/share/backstep";
  // Never a shared place such as /tmp: anyone could have made it first.
  std::string own = passwd_home();
  if (own.empty())
    throw std::runtime_error("HOME is not set and the password database has no home directory for " +
                             user_name(::geteuid()) + ": set BACKSTEP_DIR to a directory for traces");
  return own + "/.local/share/backstep";
}

// Like `mkdir -p`, but every directory it creates is private (0700): traces
// hold the program's memory, input and environment. Existing directories
// are left as they are, but the root itself must be ours alone.
static void make_private_dirs(const std::string& root) {
  fs::path path;
  for (const fs::path& part : fs::path(root)) {
    path /= part;
    if (::mkdir(path.c_str(), 0700) == 0 || errno == EEXIST) continue;
    throw std::runtime_error("cannot create the trace directory " + path.string() + ": " + std::strerror(errno));
  }
  require_ours(root, "the trace root");
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
  std::string link = root + "/" + kLatestLink;
  std::string tmp = link + ".tmp" + std::to_string(getpid());
  std::string target = fs::path(dir).filename().string();
  unlink(tmp.c_str());
  if (symlink(target.c_str(), tmp.c_str()) == 0) {
    if (rename(tmp.c_str(), link.c_str()) != 0) unlink(tmp.c_str());
  }
}

static bool is_trace(const fs::path& p) {
  std::error_code ec;
  // symlink_status: a trace's header is never a link (the reader would refuse it).
  return fs::is_regular_file(fs::symlink_status(p / "header", ec));
}

// The trace `latest-trace` names: a link that we made (set_latest_trace),
// in a root of ours, to a name inside that root.
static std::string latest_trace(const std::string& root) {
  std::string link = root + "/" + kLatestLink;
  struct stat st;
  if (::lstat(link.c_str(), &st) != 0)
    throw std::runtime_error("no trace given and no latest trace in " + trace::printable(root) +
                             " (record one with `backstep record PROG`)");
  auto refuse = [&](const std::string& why) {
    throw std::runtime_error("refusing " + trace::printable(link) + ": " + why);
  };
  if (!S_ISLNK(st.st_mode)) refuse("it is not a symbolic link, so backstep did not make it");
  if (st.st_uid != ::geteuid()) refuse("it is owned by " + user_name(st.st_uid) + ", not by you");
  char target[4096];
  ssize_t n = ::readlink(link.c_str(), target, sizeof target);
  if (n < 0 || static_cast<std::size_t>(n) >= sizeof target) refuse("cannot read it");
  std::string name(target, static_cast<std::size_t>(n));
  if (name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos)
    refuse("it points at \"" + trace::printable(name) + "\", not at a trace of " + trace::printable(root));
  return root + "/" + name;
}

std::string resolve_trace(const std::string& arg) {
  std::string dir;
  std::error_code ec;
  if (arg.empty()) {
    std::string root = trace_root();
    require_ours(root, "the trace root");
    dir = latest_trace(root);
  } else if (fs::exists(arg, ec)) {
    dir = arg;
  } else {
    std::string root = trace_root();
    fs::path in_root = fs::path(root) / arg;
    if (!fs::exists(in_root, ec))
      throw std::runtime_error("no trace at '" + trace::printable(arg) + "' (nor in " + trace::printable(root) + ")");
    require_ours(root, "the trace root");
    dir = in_root.string();
  }
  // Anything but a directory is the reader's to refuse ("not a trace").
  if (is_directory(dir)) require_ours(dir, "the trace directory");
  return dir;
}

std::vector<std::string> list_traces() {
  std::string root = trace_root();
  if (!fs::exists(root)) return {};
  require_ours(root, "the trace root");
  std::vector<std::pair<fs::file_time_type, std::string>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (entry.is_symlink() || !is_trace(entry.path())) continue;
    found.emplace_back(fs::last_write_time(entry.path() / "header", ec), entry.path().filename().string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> names;
  for (auto& f : found) names.push_back(f.second);
  return names;
}

}  // namespace backstep::cli
