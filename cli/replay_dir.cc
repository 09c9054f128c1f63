#include "cli/replay_dir.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "cli/gdb_autoload.h"
#include "cli/process_cleanup.h"
#include "cli/remove_tree.h"

namespace backstep::cli {
namespace {

// gdb commands for what the remote protocol has no words for: going back to
// a checkpoint must go through `run cN` so that gdb re-reads everything.
const char kGdbCommands[] =
    "set confirm off\n"  // gdb's own `restart` (native checkpoints) is replaced
    "define restart\n"
    "  run c$arg0\n"
    "end\n"
    "document restart\n"
    "Go back to checkpoint N (made with `monitor checkpoint`): restart N.\n"
    "end\n"
    "define when\n"
    "  monitor when\n"
    "end\n"
    "document when\n"
    "Print the current event number and exact position in the recording.\n"
    "end\n"
    "set confirm on\n";

constexpr char kDirName[] = "/backstep-XXXXXX";
constexpr char kSocketName[] = "/rsp.sock";

// $XDG_RUNTIME_DIR if it is an absolute path to a directory that this user
// owns and nobody else may write, that gdb's command line can carry (no
// blanks or quotes), and short enough for a socket's path under it; else
// /tmp.
std::string base_dir() {
  const char* runtime = getenv("XDG_RUNTIME_DIR");
  if (!runtime || runtime[0] != '/' || std::strpbrk(runtime, " \t\n'\"\\")) return "/tmp";
  if (std::strlen(runtime) + sizeof(kDirName) + sizeof(kSocketName) > sizeof(sockaddr_un::sun_path)) return "/tmp";
  struct stat st {};
  if (lstat(runtime, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022) != 0) {
    return "/tmp";
  }
  return runtime;
}

}  // namespace

ReplayDir::ReplayDir() {
  std::string dir = base_dir() + kDirName;
  if (!mkdtemp(dir.data())) {
    throw std::runtime_error("cannot create a private directory " + dir + ": " + strerror(errno));
  }
  path_ = dir;
  remove_on_signals(path_);
  // mkdtemp makes it 0700 already; said again, whatever the umask did.
  if (chmod(path_.c_str(), 0700) != 0) {
    int e = errno;
    remove_tree(path_.c_str());
    forget_on_signals(path_);
    throw std::runtime_error("cannot make " + path_ + " private: " + strerror(e));
  }
}

ReplayDir::~ReplayDir() {
  remove_tree(path_.c_str());
  forget_on_signals(path_);
}

std::string ReplayDir::socket_path() const { return path_ + kSocketName; }

std::string replay_gdb_commands() { return std::string(kGdbCommands) + gdb_autoload_commands(); }

std::string ReplayDir::write_gdb_commands() const {
  std::string path = path_ + "/gdb-commands";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + path + ": " + strerror(errno));
  std::string text = replay_gdb_commands();
  ssize_t n = write(fd, text.data(), text.size());
  close(fd);
  if (n != static_cast<ssize_t>(text.size())) throw std::runtime_error("cannot write gdb's commands to " + path);
  return path;
}

}  // namespace backstep::cli
